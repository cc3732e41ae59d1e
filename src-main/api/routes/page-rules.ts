// Page rules: /client/v4/zones/:zone_id/pagerules. Lists are not paged (the vendor answers the
// whole list); `status` filters, `order` (status | priority) and `direction` sort. `…/settings`
// lists the settings a page rule can apply.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { PAGE_RULE_SETTINGS } from '@shared/api/page-rule-settings'
import { PageRuleCreateBody, PageRuleEditBody } from '@shared/api/waf'
import type { ZoneConfiguration } from '../../zones/configuration'
import { ok } from '../envelope'

const ZoneParams = Type.Object({ zone_id: Type.String() })
const RuleParams = Type.Object({ zone_id: Type.String(), pagerule_id: Type.String() })
const ListQuery = Type.Object({
  status: Type.Optional(Type.Enum(['active', 'disabled'] as const)),
  order: Type.Optional(Type.Enum(['status', 'priority'] as const)),
  direction: Type.Optional(Type.Enum(['asc', 'desc'] as const)),
  match: Type.Optional(Type.Enum(['any', 'all'] as const)),
})

export const pageRuleRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  const inZone = configuration.pageRules.bind(configuration)

  app.get(
    '/zones/:zone_id/pagerules',
    { schema: { params: ZoneParams, querystring: ListQuery } },
    async (request) => {
      const { status, order = 'priority', direction = 'desc' } = request.query
      const rules = (await inZone(request.params.zone_id, (pageRules) => pageRules.list())).filter(
        (rule) => status === undefined || rule.status === status,
      )
      const sign = direction === 'desc' ? -1 : 1
      rules.sort((a, b) =>
        order === 'priority'
          ? sign * (a.priority - b.priority)
          : sign * a.status.localeCompare(b.status),
      )
      return ok(rules)
    },
  )

  app.get(
    '/zones/:zone_id/pagerules/settings',
    { schema: { params: ZoneParams } },
    async (request) => ok(await inZone(request.params.zone_id, () => PAGE_RULE_SETTINGS)),
  )

  app.post(
    '/zones/:zone_id/pagerules',
    { schema: { params: ZoneParams, body: PageRuleCreateBody } },
    async (request) => ok(await inZone(request.params.zone_id, (p) => p.create(request.body))),
  )

  app.get(
    '/zones/:zone_id/pagerules/:pagerule_id',
    { schema: { params: RuleParams } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (p) => p.get(request.params.pagerule_id))),
  )

  // PUT replaces targets and actions (both required, priority and status kept unless given);
  // PATCH changes only what it names.
  app.put(
    '/zones/:zone_id/pagerules/:pagerule_id',
    { schema: { params: RuleParams, body: PageRuleCreateBody } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (p) =>
          p.edit(request.params.pagerule_id, request.body),
        ),
      ),
  )

  app.patch(
    '/zones/:zone_id/pagerules/:pagerule_id',
    { schema: { params: RuleParams, body: PageRuleEditBody } },
    async (request) =>
      ok(
        await inZone(request.params.zone_id, (p) =>
          p.edit(request.params.pagerule_id, request.body),
        ),
      ),
  )

  app.delete(
    '/zones/:zone_id/pagerules/:pagerule_id',
    { schema: { params: RuleParams } },
    async (request) =>
      ok(await inZone(request.params.zone_id, (p) => p.delete(request.params.pagerule_id))),
  )
}
