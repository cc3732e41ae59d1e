// /client/v4/zones/:zone_id/firewall/rules: the vendor's Firewall Rules API, and the workbench's
// own /workbench/v1/zones/:zone_id/firewall/settings for the zone's rule quota. Bodies are
// arrays; a create also takes the single object the current official SDK sends.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import {
  FirewallRuleBulkUpdate,
  FirewallRuleCreate,
  FirewallRuleDeleteBody,
  FirewallRuleUpdate,
  idsToDelete,
  PriorityUpdate,
} from '@shared/api/firewall'
import type { ZoneConfiguration } from '../../zones/configuration'
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
      schema: {
        params: ZoneParams,
        body: Type.Union([Type.Array(FirewallRuleCreate), FirewallRuleCreate]),
      },
    },
    async (request) => {
      const body = Array.isArray(request.body) ? request.body : [request.body]
      return ok(await inZone(request.params.zone_id, (f) => f.createRules(body)))
    },
  )

  app.put(
    '/zones/:zone_id/firewall/rules',
    { schema: { params: ZoneParams, body: Type.Array(FirewallRuleBulkUpdate) } },
    async (request) => ok(await inZone(request.params.zone_id, (f) => f.updateRules(request.body))),
  )

  app.patch(
    '/zones/:zone_id/firewall/rules',
    { schema: { params: ZoneParams, body: Type.Array(PriorityUpdate) } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (f) => f.setPriorities(request.body))),
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
    { schema: { params: RuleParams, body: FirewallRuleUpdate } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (f) =>
          f.updateRule(request.params.rule_id, request.body),
        ),
      ),
  )

  app.patch(
    '/zones/:zone_id/firewall/rules/:rule_id',
    { schema: { params: RuleParams, body: PriorityUpdate } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (f) =>
          f.setPriority(request.params.rule_id, request.body.priority),
        ),
      ),
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
