// The Filters API: /client/v4/zones/:zone_id/filters (array bodies, all or nothing; a create or
// bulk update also takes the one object of the OpenAPI document, answered as an array), and the
// expression check /client/v4/filters/validate-expr, which is not zone-scoped and answers as the
// vendor does: an invalid expression gets 400 with `success: false`, `messages: null` and errors
// without codes, whose message is the three-line caret form (Filter parsing error, the expression
// in backticks, carets under the bad token).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import {
  FilterBulkUpdate,
  FilterCreate,
  FilterDeleteBody,
  FilterUpdate,
  idsToDelete,
  itemsOf,
  requireItemIds,
  OneOrMany,
} from '@shared/api/firewall'
import { compile, ExpressionError, formatValidateExprError } from '@shared/expression'
import type { ZoneConfiguration } from '../../zones/configuration'
import { FIREWALL_PER_PAGE, ok, pageOfList, pageQuery } from '../envelope'

const Expression = Type.Object({ expression: Type.String() })

function validateExpression(expression: string, reply: FastifyReply) {
  try {
    compile(expression)
    return ok(null)
  } catch (error) {
    if (!(error instanceof ExpressionError)) throw error
    // 400: cloudflare-go reads the body of this route's 400 as the verdict, and takes any 2xx
    // for a valid expression (docs/vendor-behaviour.md#filters-api).
    void reply.code(400)
    return {
      success: false,
      errors: [{ message: formatValidateExprError(error, expression) }],
      messages: null,
      result: null,
    }
  }
}

const requireIds = requireItemIds('filter')

const ZoneParams = Type.Object({ zone_id: Type.String() })
const FilterParams = Type.Object({ zone_id: Type.String(), filter_id: Type.String() })
const ListQuery = Type.Object({
  id: Type.Optional(Type.Array(Type.String())),
  paused: Type.Optional(Type.Boolean()),
  expression: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  ref: Type.Optional(Type.String()),
  ...pageQuery(FIREWALL_PER_PAGE),
})
const IdsQuery = Type.Object({ id: Type.Optional(Type.Array(Type.String())) })

export const filterRoutes: FastifyPluginAsyncTypebox<{ configuration: ZoneConfiguration }> = async (
  app,
  { configuration },
) => {
  const inZone = configuration.filters.bind(configuration)

  app.get(
    '/zones/:zone_id/filters',
    { schema: { params: ZoneParams, querystring: ListQuery } },
    async (request) => {
      const { page: _page, per_page: _perPage, ...query } = request.query
      const filters = await inZone(request.params.zone_id, (f) => f.listFilters(query))
      return pageOfList(filters, request.query, FIREWALL_PER_PAGE.default)
    },
  )

  app.post(
    '/zones/:zone_id/filters',
    { schema: { params: ZoneParams, body: OneOrMany(FilterCreate) } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.createFilters(itemsOf(request.body)))),
  )

  app.put(
    '/zones/:zone_id/filters',
    {
      schema: { params: ZoneParams, body: OneOrMany(FilterBulkUpdate) },
      preValidation: requireIds,
    },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.editFilters(itemsOf(request.body)))),
  )

  app.delete(
    '/zones/:zone_id/filters',
    {
      schema: { params: ZoneParams, querystring: IdsQuery, body: Type.Optional(FilterDeleteBody) },
    },
    async (request) => {
      const ids = idsToDelete(request.query.id, request.body)
      return ok(await inZone(request.params.zone_id, (f) => f.deleteFilters(ids)))
    },
  )

  app.get(
    '/zones/:zone_id/filters/:filter_id',
    { schema: { params: FilterParams } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.getFilter(request.params.filter_id))),
  )

  app.put(
    '/zones/:zone_id/filters/:filter_id',
    { schema: { params: FilterParams, body: FilterUpdate } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (f) =>
          f.updateFilter(request.params.filter_id, request.body),
        ),
      ),
  )

  app.delete(
    '/zones/:zone_id/filters/:filter_id',
    { schema: { params: FilterParams } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.deleteFilter(request.params.filter_id))),
  )

  app.get(
    '/filters/validate-expr',
    { schema: { querystring: Expression } },
    async (request, reply) => validateExpression(request.query.expression, reply),
  )
  app.post('/filters/validate-expr', { schema: { body: Expression } }, async (request, reply) =>
    validateExpression(request.body.expression, reply),
  )
}
