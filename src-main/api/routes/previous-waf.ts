// The previous managed-rules product's API (docs/vendor-behaviour.md#previous-waf-api):
// /client/v4/zones/:zone_id/firewall/waf/{packages,overrides}… and the zone's `waf` setting
// (/settings/waf). Lists page by number (per_page 5..100, 50 by default) and sort by `order` and
// `direction`. Every route refuses once the zone is on managed rulesets (PreviousWaf says how).

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import {
  WafGroupEditBody,
  WafOverrideCreateBody,
  WafOverrideUpdateBody,
  WafPackageEditBody,
  WafRuleEditBody,
  WafSettingEditBody,
} from '@shared/api/waf'
import type { ZoneConfiguration } from '../../zones/configuration'
import { ok, pageOfList, pageQuery } from '../envelope'

const WAF_PER_PAGE = { default: 50, minimum: 5, maximum: 100 }

const Direction = Type.Optional(Type.Enum(['asc', 'desc'] as const))
const Match = Type.Optional(Type.Enum(['any', 'all'] as const))
const ZoneParams = Type.Object({ zone_id: Type.String() })
const PackageParams = Type.Object({ zone_id: Type.String(), package_id: Type.String() })
const GroupParams = Type.Object({
  zone_id: Type.String(),
  package_id: Type.String(),
  group_id: Type.String(),
})
const RuleParams = Type.Object({
  zone_id: Type.String(),
  package_id: Type.String(),
  rule_id: Type.String(),
})
const OverrideParams = Type.Object({ zone_id: Type.String(), override_id: Type.String() })

const PackagesQuery = Type.Object({
  ...pageQuery(WAF_PER_PAGE),
  order: Type.Optional(Type.Literal('name')),
  direction: Direction,
  match: Match,
  name: Type.Optional(Type.String()),
})
const GroupsQuery = Type.Object({
  ...pageQuery(WAF_PER_PAGE),
  mode: Type.Optional(Type.Enum(['on', 'off'] as const)),
  order: Type.Optional(Type.Enum(['mode', 'rules_count'] as const)),
  direction: Direction,
  match: Match,
  name: Type.Optional(Type.String()),
  rules_count: Type.Optional(Type.Integer({ minimum: 0 })),
})
const RulesQuery = Type.Object({
  ...pageQuery(WAF_PER_PAGE),
  mode: Type.Optional(Type.Enum(['DIS', 'CHL', 'BLK', 'SIM'] as const)),
  group_id: Type.Optional(Type.String()),
  order: Type.Optional(Type.Enum(['priority', 'group_id', 'description'] as const)),
  direction: Direction,
  match: Match,
  description: Type.Optional(Type.String()),
  priority: Type.Optional(Type.String()),
})
const OverridesQuery = Type.Object(pageQuery(WAF_PER_PAGE))

/** `items` sorted by `key` (numbers as numbers), stable; as they are when no key is asked for. */
function sortedBy<T>(items: T[], key: ((item: T) => string | number) | undefined, desc: boolean) {
  if (key === undefined) return desc ? [...items].reverse() : items
  const sign = desc ? -1 : 1
  return [...items].sort((a, b) => {
    const x = key(a)
    const y = key(b)
    return (
      sign *
      (typeof x === 'number' && typeof y === 'number' ? x - y : String(x).localeCompare(String(y)))
    )
  })
}

export const previousWafRoutes: FastifyPluginAsyncTypebox<{
  configuration: ZoneConfiguration
}> = async (app, { configuration }) => {
  const waf = configuration.previousWaf.bind(configuration)

  app.get(
    '/zones/:zone_id/firewall/waf/packages',
    { schema: { params: ZoneParams, querystring: PackagesQuery } },
    async (request) => {
      const { name, order, direction } = request.query
      const packages = await waf(request.params.zone_id, (w) => w.packages(name))
      const sorted = sortedBy(packages, order && ((p) => p.name), direction === 'desc')
      return pageOfList(sorted, request.query, WAF_PER_PAGE.default)
    },
  )

  app.get(
    '/zones/:zone_id/firewall/waf/packages/:package_id',
    { schema: { params: PackageParams } },
    async (request) =>
      ok(await waf(request.params.zone_id, (w) => w.package(request.params.package_id))),
  )

  app.patch(
    '/zones/:zone_id/firewall/waf/packages/:package_id',
    { schema: { params: PackageParams, body: WafPackageEditBody } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.editPackage(request.params.package_id, request.body),
        ),
      ),
  )

  app.get(
    '/zones/:zone_id/firewall/waf/packages/:package_id/groups',
    { schema: { params: PackageParams, querystring: GroupsQuery } },
    async (request) => {
      const { mode, name, order, direction, rules_count } = request.query
      const groups = (
        await waf(request.params.zone_id, (w) =>
          w.groups(request.params.package_id, { mode, name }),
        )
      ).filter((group) => rules_count === undefined || group.rules_count === rules_count)
      const sorted = sortedBy(
        groups,
        order === undefined ? undefined : (g) => g[order],
        direction === 'desc',
      )
      return pageOfList(sorted, request.query, WAF_PER_PAGE.default)
    },
  )

  app.get(
    '/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id',
    { schema: { params: GroupParams } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.group(request.params.package_id, request.params.group_id),
        ),
      ),
  )

  app.patch(
    '/zones/:zone_id/firewall/waf/packages/:package_id/groups/:group_id',
    { schema: { params: GroupParams, body: WafGroupEditBody } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.editGroup(request.params.package_id, request.params.group_id, request.body),
        ),
      ),
  )

  app.get(
    '/zones/:zone_id/firewall/waf/packages/:package_id/rules',
    { schema: { params: PackageParams, querystring: RulesQuery } },
    async (request) => {
      const { order, direction, mode, group_id, description, priority } = request.query
      const rules = await waf(request.params.zone_id, (w) =>
        w.rules(request.params.package_id, { mode, group_id, description, priority }),
      )
      const key =
        order === 'priority'
          ? (r: (typeof rules)[number]) => Number(r.priority)
          : order === 'group_id'
            ? (r: (typeof rules)[number]) => r.group.id
            : order === 'description'
              ? (r: (typeof rules)[number]) => r.description
              : undefined
      return pageOfList(
        sortedBy(rules, key, direction === 'desc'),
        request.query,
        WAF_PER_PAGE.default,
      )
    },
  )

  app.get(
    '/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id',
    { schema: { params: RuleParams } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.rule(request.params.package_id, request.params.rule_id),
        ),
      ),
  )

  app.patch(
    '/zones/:zone_id/firewall/waf/packages/:package_id/rules/:rule_id',
    { schema: { params: RuleParams, body: WafRuleEditBody } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.editRule(request.params.package_id, request.params.rule_id, request.body.mode),
        ),
      ),
  )

  app.get(
    '/zones/:zone_id/firewall/waf/overrides',
    { schema: { params: ZoneParams, querystring: OverridesQuery } },
    async (request) =>
      pageOfList(
        await waf(request.params.zone_id, (w) => w.overrides()),
        request.query,
        WAF_PER_PAGE.default,
      ),
  )

  app.post(
    '/zones/:zone_id/firewall/waf/overrides',
    { schema: { params: ZoneParams, body: WafOverrideCreateBody } },
    async (request) => ok(await waf(request.params.zone_id, (w) => w.createOverride(request.body))),
  )

  app.get(
    '/zones/:zone_id/firewall/waf/overrides/:override_id',
    { schema: { params: OverrideParams } },
    async (request) =>
      ok(await waf(request.params.zone_id, (w) => w.override(request.params.override_id))),
  )

  app.put(
    '/zones/:zone_id/firewall/waf/overrides/:override_id',
    { schema: { params: OverrideParams, body: WafOverrideUpdateBody } },
    async (request) =>
      ok(
        await waf(request.params.zone_id, (w) =>
          w.updateOverride(request.params.override_id, request.body),
        ),
      ),
  )

  app.delete(
    '/zones/:zone_id/firewall/waf/overrides/:override_id',
    { schema: { params: OverrideParams } },
    async (request) =>
      ok(await waf(request.params.zone_id, (w) => w.deleteOverride(request.params.override_id))),
  )

  app.get('/zones/:zone_id/settings/waf', { schema: { params: ZoneParams } }, async (request) =>
    ok(await waf(request.params.zone_id, (w) => w.setting())),
  )

  app.patch(
    '/zones/:zone_id/settings/waf',
    { schema: { params: ZoneParams, body: WafSettingEditBody } },
    async (request) =>
      ok(await waf(request.params.zone_id, (w) => w.editSetting(request.body.value))),
  )
}
