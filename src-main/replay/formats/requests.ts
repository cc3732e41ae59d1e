// Our own request descriptions, one JSON object a line: the body of the simulate API.

import { Compile } from 'typebox/compile'
import { badRequest } from '@shared/api/errors'
import { SimulatedRequest } from '@shared/api/simulate'
import { API_ERRORS } from '@shared/api/error-codes'
import type { Line } from '../lines'
import type { ReplayRecord } from './types'

/** The JSON value of a line, or the replay's refusal naming the line. */
export function jsonOfLine(line: Line): unknown {
  try {
    return JSON.parse(line.text)
  } catch (error) {
    throw badRequest(
      API_ERRORS.malformedBody,
      `Line ${line.number} is not JSON: ${(error as Error).message}`,
    )
  }
}

/**
 * The description's schema compiled once: every line is checked, and the interpreted Value.Check
 * cost ~70 times as much (some 100 µs a request), most of a replay's main thread.
 */
const requestSchema = Compile(SimulatedRequest)

export function requestOfLine(line: Line): ReplayRecord {
  const parsed = jsonOfLine(line)
  if (!requestSchema.Check(parsed)) {
    const [first] = requestSchema.Errors(parsed)
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Line ${line.number} is not a request description: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
    )
  }
  return { line: line.number, request: parsed, absent: [] }
}
