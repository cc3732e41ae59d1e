// An expression a rule or a filter carries, checked as the vendor checks it: compiled for the
// phase it runs in, blank and invalid expressions refused with the codes of the API that was
// called (the Rulesets API's, or the Filters and Firewall Rules APIs').

import { compile, ExpressionError, rulesetExpressionErrorMessage } from '@shared/expression'
import { invalidValue, type Problems } from './problems'

/** The codes a refused expression is answered with. */
export interface ExpressionCodes {
  blank: number
  invalid: number
}

/** Compiles `expression` for `phase`; the vendor's blank and parse errors otherwise. */
export function checkExpression(
  expression: string | undefined,
  pointer: string,
  phase: string,
  problems: Problems,
  codes: ExpressionCodes,
): string | undefined {
  if (expression === undefined || expression.trim() === '') {
    problems.add(
      codes.blank,
      invalidValue('', 'expression', 'the expression cannot be blank'),
      pointer,
    )
    return undefined
  }
  try {
    compile(expression, { phase })
    return expression
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error
    problems.add(codes.invalid, rulesetExpressionErrorMessage(error, expression), pointer)
    return undefined
  }
}
