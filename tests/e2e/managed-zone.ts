// A zone made through the API for a browser test, with managed rulesets deployed in its entry
// point: what the traffic screens' tests start from.

import { expect } from '@playwright/test'
import type { Workbench } from './fixtures'

/** The general managed ruleset's id. */
export const GENERAL = 'efb7b8c949ac4650a09736fc376e9aee'

/** A zone named `name` (on Pro) whose managed-phase entry point executes `rulesets`: its id. */
export async function zoneExecuting(
  workbench: Workbench,
  name: string,
  rulesets: string[] = [GENERAL],
): Promise<string> {
  const call = async (method: string, path: string, body: unknown) => {
    const answer = await fetch(`${workbench.api}${path}`, {
      method,
      headers: { authorization: `Bearer ${workbench.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then((r) => r.json())
    expect(answer.success, JSON.stringify(answer.errors)).toBe(true)
    return answer.result
  }
  const zone = await call('POST', '/zones', { name, plan: 'pro' })
  await call('PUT', `/zones/${zone.id}/rulesets/phases/http_request_firewall_managed/entrypoint`, {
    rules: rulesets.map((id) => ({
      action: 'execute',
      expression: 'true',
      action_parameters: { id },
    })),
  })
  return zone.id as string
}
