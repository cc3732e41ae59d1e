// A zone's (or the account's) security configuration, one change at a time: each call runs in
// the owning object as one atomic write (see transact), so a refused request changes nothing and
// a dry run answers without writing. The API routes and the renderer's bridge both come here.

import { ApiError, badRequest } from '@shared/api/errors'
import { PHASE_MANAGED } from '@shared/expression'
import type { Phase, Ruleset, RulesetUpdateBody } from '@shared/api/rulesets'
import type {
  MigrationCheck,
  MigrationConfig,
  MigrationPreview,
  MigrationStatus,
} from '@shared/api/waf'
import type { ManagedCatalog } from './rulesets/catalog'
import { Filters } from './firewall/filters'
import { FirewallRules } from './firewall/firewall-rules'
import { PageRules } from './page-rules/page-rules'
import type { LegacyCatalog } from './previous-waf/catalog'
import {
  carriedOver,
  checkMigration,
  DEFAULT_SWITCH_MS,
  migrationConfig,
  migrationSnapshot,
  migrationState,
  migrationStatus,
  notMigrated,
  owaspMapping,
  ranPreviousProduct,
} from './previous-waf/migration'
import { PreviousWaf } from './previous-waf/previous-waf'
import { systemClock, type Clock } from '../objects'
import type { ZoneRegistry } from './registry'
import { newVendorId, vendorTimestamp } from './vendor-format'
import { Rulesets } from './rulesets/rulesets'
import { MIGRATION_STARTED_NOTE, type ZoneObject, type ZoneRecord } from './zone-object'
import { MIGRATION_ERRORS } from '@shared/api/error-codes'
import { offersValidationMode } from '@shared/api/zones'

/** Whose rulesets: a zone's, or the account's. */
export type RulesetOwner = { zoneId: string } | { accountId: string }

export interface ChangeOptions {
  dryRun?: boolean
}

export interface ConfigurationOptions {
  clock?: Clock
  /** how long a migration's switch-over takes */
  migrationSwitchMs?: number
}

const MANAGED_PHASE = PHASE_MANAGED as Phase

/** Where what a change creates gets its ids and its time (the service's own unless given). */
export interface Identities {
  newId: () => string
  /** The time stamped on what is written, in the vendor's format: the clock's, unless given. */
  timestamp: () => string
}

/** The API of each part of one zone's configuration, for a change that spans them all. */
export interface ZoneParts {
  rulesets(identities?: Identities): Rulesets
  filters(identities?: Identities): Filters
  firewallRules(identities?: Identities): FirewallRules
  /** refused (10400) for a zone on managed rulesets */
  previousWaf(identities?: Identities): PreviousWaf
  pageRules(identities?: Identities): PageRules
}

export class ZoneConfiguration {
  private readonly clock: Clock
  private readonly switchMs: number

  constructor(
    private readonly zones: ZoneRegistry,
    readonly catalog: ManagedCatalog,
    readonly legacy: LegacyCatalog,
    options: ConfigurationOptions = {},
  ) {
    this.clock = options.clock ?? systemClock
    this.switchMs = options.migrationSwitchMs ?? DEFAULT_SWITCH_MS
  }

  private timestamp = () => vendorTimestamp(this.clock.now())

  rulesets<R>(
    owner: RulesetOwner,
    work: (rulesets: Rulesets) => R,
    options: ChangeOptions = {},
  ): Promise<Awaited<R>> {
    const common = { catalog: this.catalog, timestamp: this.timestamp, newId: newVendorId }
    if ('zoneId' in owner) {
      return this.zones.inZone(owner.zoneId, (zone, record) =>
        zone.change(() => work(this.zoneRulesets(zone, record)), options),
      )
    }
    return this.zones.inAccount(owner.accountId, (account) =>
      account.change(
        () =>
          work(
            new Rulesets({
              ...common,
              store: account.rulesets,
              scope: 'account',
              basePath: `/accounts/${owner.accountId}`,
              describe: (note) => account.describe(note),
            }),
          ),
        options,
      ),
    )
  }

  /**
   * Each part's API over `zone` as `record` says it stands, for a change of the whole
   * configuration that the caller runs in the zone's object as one write (a bundle's import).
   * What the parts write is described by `describe` (the caller says it once for all).
   */
  zoneParts(zone: ZoneObject, record: ZoneRecord, describe: (note: string) => void): ZoneParts {
    const own: Identities = { newId: newVendorId, timestamp: this.timestamp }
    const basePath = `/zones/${record.id}`
    return {
      rulesets: (identities = own) =>
        this.zoneRulesets(zone, record, 'as the zone stands', { ...identities, describe }),
      filters: (identities = own) =>
        new Filters({ store: zone.firewall, basePath, describe, ...identities }),
      firewallRules: (identities = own) =>
        new FirewallRules({
          store: zone.firewall,
          plan: record.plan,
          basePath,
          describe,
          ...identities,
        }),
      previousWaf: (identities = own) =>
        new PreviousWaf({
          store: zone.previousWaf,
          catalog: this.legacy,
          record,
          describe,
          ...identities,
        }),
      pageRules: (identities = own) =>
        new PageRules({
          store: zone.pageRules,
          plan: record.plan,
          basePath,
          describe,
          ...identities,
        }),
    }
  }

  private zoneRulesets(
    zone: ZoneObject,
    record: ZoneRecord,
    managedDeployments: 'as the zone stands' | 'migrating' = 'as the zone stands',
    writer: Identities & { describe: (note: string) => void } = {
      timestamp: this.timestamp,
      newId: newVendorId,
      describe: (note) => zone.describe(note),
    },
  ): Rulesets {
    const notBegun = migrationState(record, zone.previousWaf.settings()) === 'start'
    return new Rulesets({
      catalog: this.catalog,
      ...writer,
      store: zone.rulesets,
      scope: 'zone',
      basePath: `/zones/${record.id}`,
      ...(notBegun && managedDeployments !== 'migrating'
        ? {
            managedDeploymentsRefused: `the zone still runs the previous WAF managed rules: deploy managed rulesets through its migration (PUT /zones/${record.id}/rulesets/phases/http_request_firewall_managed/entrypoint?waf_migration=pending&phase_two=1, after GET /zones/${record.id}/waf_migration/check?phase_two=1)`,
          }
        : {}),
    })
  }

  /** Runs `work` on the parts of zone `zoneId` as one change (see transact). */
  private inZoneParts<R>(zoneId: string, work: (parts: ZoneParts) => R): Promise<Awaited<R>> {
    return this.zones.inZone(zoneId, (zone, record) =>
      zone.change(() => work(this.zoneParts(zone, record, (note) => zone.describe(note)))),
    )
  }

  filters<R>(zoneId: string, work: (filters: Filters) => R): Promise<Awaited<R>> {
    return this.inZoneParts(zoneId, (parts) => work(parts.filters()))
  }

  firewallRules<R>(zoneId: string, work: (rules: FirewallRules) => R): Promise<Awaited<R>> {
    return this.inZoneParts(zoneId, (parts) => work(parts.firewallRules()))
  }

  /** The previous product's API for the zone (refused once the zone is on managed rulesets). */
  previousWaf<R>(zoneId: string, work: (waf: PreviousWaf) => R): Promise<Awaited<R>> {
    return this.inZoneParts(zoneId, (parts) => work(parts.previousWaf()))
  }

  pageRules<R>(zoneId: string, work: (pageRules: PageRules) => R): Promise<Awaited<R>> {
    return this.inZoneParts(zoneId, (parts) => work(parts.pageRules()))
  }

  // --- the migration ----------------------------------------------------------------------------

  migrationCheck(zoneId: string): Promise<MigrationCheck> {
    return this.zones.inZone(zoneId, (zone, record) =>
      checkMigration(migrationSnapshot(zone, record, this.legacy)),
    )
  }

  migrationConfig(zoneId: string): Promise<MigrationConfig> {
    return this.zones.inZone(zoneId, (zone, record) =>
      migrationConfig(migrationSnapshot(zone, record, this.legacy)),
    )
  }

  migrationStatus(zoneId: string): Promise<MigrationStatus> {
    return this.zones.inZone(zoneId, (zone, record) =>
      migrationStatus(record, zone.previousWaf.settings()),
    )
  }

  migrationPreview(zoneId: string): Promise<MigrationPreview> {
    return this.zones.inZone(zoneId, (zone, record) => {
      const snapshot = migrationSnapshot(zone, record, this.legacy)
      let config: MigrationConfig | null = null
      let configError: MigrationPreview['config_error'] = null
      try {
        config = migrationConfig(snapshot)
      } catch (error) {
        if (!(error instanceof ApiError)) throw error
        configError = { code: error.code, message: error.message }
      }
      const entrypoint = zone.rulesets.entrypoint(MANAGED_PHASE, 'zone')
      return {
        check: checkMigration(snapshot),
        config,
        config_error: configError,
        current_entrypoint: entrypoint === undefined ? null : entrypointBody(entrypoint),
        owasp: owaspMapping(snapshot.settings),
        not_migrated: notMigrated(snapshot, this.legacy),
        carried_over: carriedOver(snapshot),
      }
    })
  }

  /**
   * `PUT …/entrypoint?waf_migration=…`: deploys `body` as the zone's managed-phase entry point
   * and moves the migration on. `validation` (Enterprise only) runs both products, the new one
   * first; `pending` starts the switch-over, which the zone's alarm completes `switchMs` later.
   */
  deployMigration(
    zoneId: string,
    mode: 'pending' | 'validation',
    body: RulesetUpdateBody,
    options: ChangeOptions = {},
  ): Promise<Ruleset> {
    return this.zones.inZone(zoneId, (zone, record) =>
      zone.change(() => {
        const snapshot = migrationSnapshot(zone, record, this.legacy)
        const state = migrationState(record, snapshot.settings)
        if (!ranPreviousProduct(snapshot)) {
          throw badRequest(
            MIGRATION_ERRORS.nothingToMigrate,
            'This zone does not use the previous WAF managed rules: there is nothing to migrate. Leave out waf_migration.',
          )
        }
        if (state === 'completed' || state === 'pending') {
          throw badRequest(
            MIGRATION_ERRORS.alreadyMigrating,
            state === 'completed'
              ? 'The zone has already migrated to WAF managed rulesets: the migration cannot be repeated or undone.'
              : `The migration is underway and completes at ${new Date(snapshot.settings.migration_switch_at ?? 0).toISOString()}; it cannot be changed meanwhile.`,
          )
        }
        if (mode === 'validation' && !offersValidationMode(record.plan)) {
          throw badRequest(
            MIGRATION_ERRORS.validationNotAllowed,
            `Validation mode is available to Enterprise zones only (this zone is on the ${record.plan} plan): deploy with waf_migration=pending.`,
          )
        }
        const check = checkMigration(snapshot)
        if (!check.compatible) {
          throw badRequest(
            MIGRATION_ERRORS.incompatible,
            `The zone cannot migrate: ${check.reasons.join(' ')}`,
          )
        }
        // The limits on what carries over hold whatever configuration is deployed.
        migrationConfig(snapshot)
        const ruleset = this.zoneRulesets(zone, record, 'migrating').putEntrypoint(
          MANAGED_PHASE,
          body,
        )
        const at = this.clock.now()
        const started = {
          migration_created: snapshot.settings.migration_created ?? new Date(at).toISOString(),
          migration_source: 'api',
        }
        if (mode === 'validation') {
          zone.describe('WAF migration: validation mode (both WAFs run, the new one first)')
          zone.previousWaf.saveSettings({ ...started, migration_state: 'validation' })
        } else {
          const switchAt = at + this.switchMs
          zone.describe(
            `${MIGRATION_STARTED_NOTE}: the previous WAF managed rules switch off at ${new Date(switchAt).toISOString()}`,
          )
          zone.previousWaf.saveSettings({
            ...started,
            migration_state: 'pending',
            migration_switch_at: switchAt,
          })
          zone.wakeBy(switchAt)
        }
        return ruleset
      }, options),
    )
  }
}

/** An entry point as a body that would deploy it again (for the migration's diff). */
function entrypointBody(ruleset: Ruleset): MigrationPreview['current_entrypoint'] {
  return {
    name: ruleset.name,
    rules: ruleset.rules.map((rule) => ({
      id: rule.id,
      version: rule.version,
      ref: rule.ref,
      action: rule.action,
      expression: rule.expression ?? '',
      description: rule.description,
      enabled: rule.enabled,
      ...(rule.action_parameters === undefined
        ? {}
        : { action_parameters: rule.action_parameters }),
    })),
  }
}
