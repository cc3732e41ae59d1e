// /client/v4/filters: the Filters API. So far its expression check, `validate-expr`, which is not
// zone-scoped and answers as the vendor does: 200 either way; an invalid expression gets
// `success: false`, `messages: null` and errors without codes, whose message is the three-line
// caret form (Filter parsing error, the expression in backticks, carets under the bad token).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { compile, ExpressionError, formatValidateExprError } from '@shared/expression'
import { ok } from '../envelope'

const Expression = Type.Object({ expression: Type.String() })

function validateExpression(expression: string) {
  try {
    compile(expression)
    return ok(null)
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error
    return {
      success: false,
      errors: [{ message: formatValidateExprError(error, expression) }],
      messages: null,
      result: null,
    }
  }
}

export const filterRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get('/filters/validate-expr', { schema: { querystring: Expression } }, async (request) =>
    validateExpression(request.query.expression),
  )
  app.post('/filters/validate-expr', { schema: { body: Expression } }, async (request) =>
    validateExpression(request.body.expression),
  )
}
