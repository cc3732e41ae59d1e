// Our own request descriptions, one JSON object a line: the body of the simulate API.

import { Value } from 'typebox/value'
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

export function requestOfLine(line: Line): ReplayRecord {
  const parsed = jsonOfLine(line)
  if (!Value.Check(SimulatedRequest, parsed)) {
    const [first] = Value.Errors(SimulatedRequest, parsed)
    throw badRequest(
      API_ERRORS.invalidRequest,
      `Line ${line.number} is not a request description: ${first?.instancePath || '/'} ${first?.message ?? 'is invalid'}`,
    )
  }
  return { line: line.number, request: parsed, absent: [] }
}
