// /client/v4/{zones/:zone_id | accounts/:account_id}/rulesets…: the vendor's Rulesets API, for a
// zone and for the account (the same routes, registered under each prefix). Changes accept
// `dry_run=true`: checked in full, answered with `result: null` (204s stay 204), nothing written.

import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { FastifyReply } from 'fastify'
import { Type } from 'typebox'
import { badRequest, couldNotRoute } from '@shared/api/errors'
import {
  PHASES,
  RulePlacementBody,
  RulesetCreateBody,
  RulesetUpdateBody,
  type Phase,
  type RulesetSummary,
} from '@shared/api/rulesets'
import { WAF_MIGRATION_MODES } from '@shared/api/waf'
import type { RulesetOwner, ZoneConfiguration } from '../../zones/configuration'
import type { Rulesets } from '../../zones/rulesets/rulesets'
import { ok } from '../envelope'
import { API_ERRORS } from '@shared/api/error-codes'

export interface RulesetRoutesOptions {
  configuration: ZoneConfiguration
  /** whose rulesets the prefix's `:zone_id` or `:account_id` names */
  owner: 'zone' | 'account'
}

const DryRun = Type.Object({ dry_run: Type.Optional(Type.Boolean()) })
const EntrypointQuery = Type.Object({
  dry_run: Type.Optional(Type.Boolean()),
  waf_migration: Type.Optional(Type.String()),
  phase_two: Type.Optional(Type.String()),
})
const ListQuery = Type.Object({
  cursor: Type.Optional(Type.String()),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 50 })),
})
const Owner = { zone_id: Type.Optional(Type.String()), account_id: Type.Optional(Type.String()) }
const OwnerParams = Type.Object(Owner)
const RulesetParams = Type.Object({ ...Owner, ruleset_id: Type.String() })
const RuleParams = Type.Object({ ...Owner, ruleset_id: Type.String(), rule_id: Type.String() })
const VersionParams = Type.Object({ ...Owner, ruleset_id: Type.String(), version: Type.String() })
const TagParams = Type.Object({
  ...Owner,
  ruleset_id: Type.String(),
  version: Type.String(),
  tag: Type.String(),
})
const PhaseParams = Type.Object({ ...Owner, phase: Type.String() })
const PhaseVersionParams = Type.Object({ ...Owner, phase: Type.String(), version: Type.String() })

/** One page of the ruleset list; a `cursor` (the last id shown) when more remain. */
function cursorPage(items: RulesetSummary[], query: { cursor?: string; per_page?: number }) {
  let start = 0
  if (query.cursor !== undefined) {
    const at = items.findIndex((item) => item.id === query.cursor)
    if (at < 0)
      throw badRequest(
        API_ERRORS.invalidRequest,
        `Invalid request: cursor ${query.cursor} is not a position in this list`,
      )
    start = at + 1
  }
  const perPage = query.per_page ?? items.length
  const page = items.slice(start, start + perPage)
  const last = page[page.length - 1]
  const more = last !== undefined && start + page.length < items.length
  // The API documents result_info.cursors.after; the official SDK reads result_info.cursor.
  return {
    ...ok(page),
    result_info: more ? { cursor: last.id, cursors: { after: last.id }, per_page: perPage } : {},
  }
}

export const rulesetRoutes: FastifyPluginAsyncTypebox<RulesetRoutesOptions> = async (
  app,
  { configuration, owner },
) => {
  const ownerOf = (params: { zone_id?: string; account_id?: string }): RulesetOwner =>
    owner === 'zone' ? { zoneId: params.zone_id ?? '' } : { accountId: params.account_id ?? '' }
  const read = <R>(params: { zone_id?: string; account_id?: string }, work: (r: Rulesets) => R) =>
    configuration.rulesets(ownerOf(params), work)
  const change = async <R>(
    params: { zone_id?: string; account_id?: string },
    query: { dry_run?: boolean },
    work: (r: Rulesets) => R,
  ) => {
    const result = await configuration.rulesets(ownerOf(params), work, { dryRun: query.dry_run })
    return ok(query.dry_run ? null : result)
  }
  const noContent = (reply: FastifyReply) => reply.code(204).send()
  const phaseOf = (phase: string, path: string): Phase => {
    if (!(PHASES as readonly string[]).includes(phase)) throw couldNotRoute(path)
    return phase as Phase
  }
  const where = (url: string) => url.split('?')[0]!.replace(/^\/client\/v4/, '')

  app.get(
    '/rulesets',
    { schema: { params: OwnerParams, querystring: ListQuery } },
    async (request) => cursorPage(await read(request.params, (r) => r.list()), request.query),
  )

  app.post(
    '/rulesets',
    { schema: { params: OwnerParams, querystring: DryRun, body: RulesetCreateBody } },
    async (request) => change(request.params, request.query, (r) => r.create(request.body)),
  )

  app.get('/rulesets/:ruleset_id', { schema: { params: RulesetParams } }, async (request) =>
    ok(await read(request.params, (r) => r.get(request.params.ruleset_id))),
  )

  app.put(
    '/rulesets/:ruleset_id',
    { schema: { params: RulesetParams, querystring: DryRun, body: RulesetUpdateBody } },
    async (request) =>
      change(request.params, request.query, (r) =>
        r.update(request.params.ruleset_id, request.body),
      ),
  )

  app.delete(
    '/rulesets/:ruleset_id',
    { schema: { params: RulesetParams, querystring: DryRun } },
    async (request, reply) => {
      await change(request.params, request.query, (r) => r.remove(request.params.ruleset_id))
      return noContent(reply)
    },
  )

  app.get(
    '/rulesets/phases/:phase/entrypoint',
    { schema: { params: PhaseParams } },
    async (request) => {
      const phase = phaseOf(request.params.phase, where(request.url))
      return ok(await read(request.params, (r) => r.entrypoint(phase)))
    },
  )

  // With `waf_migration`, the zone's managed-phase entry point is deployed as a step of the
  // zone's migration off the previous product (ZoneConfiguration.deployMigration).
  app.put(
    '/rulesets/phases/:phase/entrypoint',
    { schema: { params: PhaseParams, querystring: EntrypointQuery, body: RulesetUpdateBody } },
    async (request) => {
      const phase = phaseOf(request.params.phase, where(request.url))
      const { waf_migration: migration, dry_run: dryRun } = request.query
      if (migration === undefined) {
        return change(request.params, request.query, (r) => r.putEntrypoint(phase, request.body))
      }
      const mode = WAF_MIGRATION_MODES[migration]
      if (mode === undefined) {
        throw badRequest(
          API_ERRORS.invalidRequest,
          `Invalid request: waf_migration must be pending (or 1) or validation (or 2), not ${JSON.stringify(migration)}`,
        )
      }
      if (owner !== 'zone' || phase !== 'http_request_firewall_managed') {
        throw badRequest(
          API_ERRORS.invalidRequest,
          "Invalid request: waf_migration applies to a zone's http_request_firewall_managed entry point only",
        )
      }
      const result = await configuration.deployMigration(
        request.params.zone_id ?? '',
        mode,
        request.body,
        { dryRun },
      )
      return ok(dryRun ? null : result)
    },
  )

  app.get(
    '/rulesets/phases/:phase/entrypoint/versions',
    { schema: { params: PhaseParams } },
    async (request) => {
      const phase = phaseOf(request.params.phase, where(request.url))
      return ok(await read(request.params, (r) => r.entrypointVersions(phase)))
    },
  )

  app.get(
    '/rulesets/phases/:phase/entrypoint/versions/:version',
    { schema: { params: PhaseVersionParams } },
    async (request) => {
      const phase = phaseOf(request.params.phase, where(request.url))
      return ok(
        await read(request.params, (r) => r.entrypointVersion(phase, request.params.version)),
      )
    },
  )

  app.post(
    '/rulesets/:ruleset_id/rules',
    { schema: { params: RulesetParams, querystring: DryRun, body: RulePlacementBody } },
    async (request) =>
      change(request.params, request.query, (r) =>
        r.addRule(request.params.ruleset_id, request.body),
      ),
  )

  app.patch(
    '/rulesets/:ruleset_id/rules/:rule_id',
    { schema: { params: RuleParams, querystring: DryRun, body: RulePlacementBody } },
    async (request) =>
      change(request.params, request.query, (r) =>
        r.editRule(request.params.ruleset_id, request.params.rule_id, request.body),
      ),
  )

  app.delete(
    '/rulesets/:ruleset_id/rules/:rule_id',
    { schema: { params: RuleParams, querystring: DryRun } },
    async (request) =>
      change(request.params, request.query, (r) =>
        r.deleteRule(request.params.ruleset_id, request.params.rule_id),
      ),
  )

  app.get(
    '/rulesets/:ruleset_id/versions',
    { schema: { params: RulesetParams } },
    async (request) => ok(await read(request.params, (r) => r.versions(request.params.ruleset_id))),
  )

  app.get(
    '/rulesets/:ruleset_id/versions/:version',
    { schema: { params: VersionParams } },
    async (request) =>
      ok(
        await read(request.params, (r) =>
          r.version(request.params.ruleset_id, request.params.version),
        ),
      ),
  )

  app.delete(
    '/rulesets/:ruleset_id/versions/:version',
    { schema: { params: VersionParams, querystring: DryRun } },
    async (request, reply) => {
      await change(request.params, request.query, (r) =>
        r.deleteVersion(request.params.ruleset_id, request.params.version),
      )
      return noContent(reply)
    },
  )

  if (owner === 'account') {
    app.get(
      '/rulesets/:ruleset_id/versions/:version/by_tag/:tag',
      { schema: { params: TagParams } },
      async (request) =>
        ok(
          await read(request.params, (r) =>
            r.byTag(request.params.ruleset_id, request.params.version, request.params.tag),
          ),
        ),
    )
  }
}
