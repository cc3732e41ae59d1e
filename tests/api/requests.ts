// Request shorthands for API tests: bodies as the harness's `call` takes them, and the result of
// a call that must succeed.

import { expect } from 'vitest'
import type { Running } from './harness'

export type Init = Parameters<Running['call']>[1]
export const post = (json: unknown): Init => ({ method: 'POST', json })
export const put = (json: unknown): Init => ({ method: 'PUT', json })
export const patch = (json: unknown): Init => ({ method: 'PATCH', json })

/** The result of a call that must answer 200 (the answer is in the failure's message). */
export async function ok(on: Running, path: string, init?: Init): Promise<any> {
  const answer = await on.call(path, init)
  expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200)
  return answer.body.result
}
