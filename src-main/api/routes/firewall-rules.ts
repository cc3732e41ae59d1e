// /client/v4/zones/:zone_id/firewall/rules: the vendor's Firewall Rules API, and the workbench's
// own /workbench/v1/zones/:zone_id/firewall/settings for the zone's rule quota. Bodies are
// arrays; a create and the bulk PUT and PATCH also take the single object the current official
// SDK sends, and a rule's action may be the SDK's object `{mode, …}` (read as its mode).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ApiError } from '@shared/api/errors'
import { FIREWALL_ERRORS } from '@shared/api/error-codes'
import {
  FirewallRuleBulkUpdate,
  FirewallRuleCreate,
  FirewallRuleDeleteBody,
  FirewallRuleUpdate,
  idsToDelete,
  itemsOf,
  requireItemIds,
  OneOrMany,
  PriorityEdit,
  PriorityUpdate,
  withStringActions,
} from '@shared/api/firewall'
import type { ZoneConfiguration } from '../../zones/configuration'
import { invalidValue } from '../../zones/problems'
import { FIREWALL_PER_PAGE, ok, pageOfList, pageQuery } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const RuleParams = Type.Object({ zone_id: Type.String(), rule_id: Type.String() })
const ListQuery = Type.Object({
  id: Type.Optional(Type.Array(Type.String())),
  action: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  paused: Type.Optional(Type.Boolean()),
  ...pageQuery(FIREWALL_PER_PAGE),
})
const DeleteQuery = Type.Object({
  id: Type.Optional(Type.Array(Type.String())),
  delete_filter_if_unused: Type.Optional(Type.Boolean()),
})
const DeleteBody = Type.Union([
  Type.Object(
    { delete_filter_if_unused: Type.Optional(Type.Boolean()) },
    { additionalProperties: false },
  ),
  Type.Null(),
])

/** Before validation: the SDK's `action: {mode, …}` becomes the action it names. */
async function readSdkActions(request: FastifyRequest) {
  request.body = withStringActions(request.body)
}

const requireIds = requireItemIds('firewall rule')

export const firewallRuleRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  const inZone = configuration.firewallRules.bind(configuration)

  app.get(
    '/zones/:zone_id/firewall/rules',
    { schema: { params: ZoneParams, querystring: ListQuery } },
    async (request) => {
      const { page: _page, per_page: _perPage, ...filters } = request.query
      const rules = await inZone(request.params.zone_id, (f) => f.listRules(filters))
      return pageOfList(rules, request.query, FIREWALL_PER_PAGE.default)
    },
  )

  app.post(
    '/zones/:zone_id/firewall/rules',
    {
      schema: { params: ZoneParams, body: OneOrMany(FirewallRuleCreate) },
      preValidation: readSdkActions,
    },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.createRules(itemsOf(request.body)))),
  )

  app.put(
    '/zones/:zone_id/firewall/rules',
    {
      schema: { params: ZoneParams, body: OneOrMany(FirewallRuleBulkUpdate) },
      preValidation: [requireIds, readSdkActions],
    },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.updateRules(itemsOf(request.body)))),
  )

  app.patch(
    '/zones/:zone_id/firewall/rules',
    {
      schema: { params: ZoneParams, body: OneOrMany(PriorityUpdate) },
      preValidation: requireIds,
    },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.setPriorities(itemsOf(request.body)))),
  )

  app.delete(
    '/zones/:zone_id/firewall/rules',
    {
      schema: {
        params: ZoneParams,
        querystring: DeleteQuery,
        body: Type.Optional(FirewallRuleDeleteBody),
      },
    },
    async (request) => {
      const { body, query } = request
      const ids = idsToDelete(query.id, body)
      const fromBody =
        body === null || Array.isArray(body) ? undefined : body?.delete_filter_if_unused
      return ok(
        await inZone(request.params.zone_id, (f) =>
          f.deleteRules(ids, fromBody ?? query.delete_filter_if_unused),
        ),
      )
    },
  )

  app.get(
    '/zones/:zone_id/firewall/rules/:rule_id',
    { schema: { params: RuleParams } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.getRule(request.params.rule_id))),
  )

  app.put(
    '/zones/:zone_id/firewall/rules/:rule_id',
    { schema: { params: RuleParams, body: FirewallRuleUpdate }, preValidation: readSdkActions },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (f) =>
          f.updateRule(request.params.rule_id, request.body),
        ),
      ),
  )

  app.patch(
    '/zones/:zone_id/firewall/rules/:rule_id',
    { schema: { params: RuleParams, body: PriorityEdit } },
    async (request) => {
      const { rule_id: id } = request.params
      const named = request.body.id
      return ok(
        await inZone(request.params.zone_id, (f) => {
          f.getRule(id)
          if (named !== undefined && named !== id) {
            throw new ApiError(
              400,
              FIREWALL_ERRORS.unknownId,
              invalidValue(named, 'id', `the path names firewall rule ${id}`),
              { source: { pointer: '/id' } },
            )
          }
          return f.setPriority(id, request.body.priority)
        }),
      )
    },
  )

  app.delete(
    '/zones/:zone_id/firewall/rules/:rule_id',
    { schema: { params: RuleParams, querystring: DeleteQuery, body: Type.Optional(DeleteBody) } },
    async (request) => {
      const fromBody = request.body?.delete_filter_if_unused
      return ok(
        await inZone(request.params.zone_id, (f) =>
          f.deleteRule(
            request.params.rule_id,
            fromBody ?? request.query.delete_filter_if_unused ?? false,
          ),
        ),
      )
    },
  )
}

const QuotaBody = Type.Object(
  { rule_quota: Type.Union([Type.Integer({ minimum: 0, maximum: 100_000 }), Type.Null()]) },
  { additionalProperties: false },
)

/** The zone's firewall rule quota: its own, or its plan's when it has none (rule_quota null). */
export const firewallSettingsRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  app.get(
    '/zones/:zone_id/firewall/settings',
    { schema: { params: ZoneParams } },
    async (request) =>
      ok(await configuration.firewallRules(request.params.zone_id, (f) => f.settings())),
  )
  app.patch(
    '/zones/:zone_id/firewall/settings',
    { schema: { params: ZoneParams, body: QuotaBody } },
    async (request) =>
      ok(
        await configuration.firewallRules(request.params.zone_id, (f) =>
          f.setRuleQuota(request.body.rule_quota),
        ),
      ),
  )
}
