// Export and import of zone bundles. An export reads the zone in its object (one consistent
// read) and its event log's caps. An import either creates the zone the bundle names, with the
// bundle's ids, or replaces the configuration of the zone that has its name as one change of
// that zone's object (one point in its history); a dry run answers the same changes and writes
// nothing.
//
// Every import is first rehearsed in a scratch object outside the data dir, so that a bundle the
// API would refuse is refused before anything is stored. A new zone is then adopted through the
// registry (crash-safe: its intent is in the account's index first) and configured in its
// object.

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTwoFilesPatch } from 'diff'
import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleContent,
  type BundleImportResult,
  type ConfigurationChange,
  type ZoneBundle,
} from '@shared/api/bundle'
import { badRequest } from '@shared/api/errors'
import type { EventLogSettings } from '@shared/api/simulate'
import { isValidZoneName } from '@shared/api/zones'
import { ObjectNamespace, systemClock, type Clock } from '../objects'
import type { ZoneConfiguration } from '../zones/configuration'
import { DEFAULT_EVENT_LIMITS } from '../zones/events'
import { previousProductOnFree, type ZoneRegistry } from '../zones/registry'
import { vendorTimestamp } from '../zones/vendor-format'
import type { ZoneEvents } from '../zones/zone-events'
import { ZoneObject, type ZoneRecord } from '../zones/zone-object'
import { applyConfiguration } from './apply'
import { diffConfigurations } from './diff'
import { bundleText, checkBundle } from './document'
import { eventLogSettings, readConfiguration, type ZoneContent } from './read'
import type { HistoryComparison } from '@shared/api/history'
import { plural } from '@shared/plural'
import { API_ERRORS, BUNDLE_ERRORS } from '@shared/api/error-codes'

export interface BundlesOptions {
  zones: ZoneRegistry
  configuration: ZoneConfiguration
  events: ZoneEvents
  clock?: Clock
}

export interface ImportOptions {
  dryRun?: boolean
}

/** The parts write; the import says once, for the zone's history, what the whole change does. */
const UNDESCRIBED = () => undefined

const conflict = (message: string, pointer: string) =>
  badRequest(BUNDLE_ERRORS.conflict, message, { source: { pointer } })

/** A migration can be where the bundle says only on a zone that can be there. */
function checkMigration({ zone, waf_migration: migration }: BundleContent): void {
  if (migration === undefined) return
  const { migration_state: state } = migration
  const possible =
    zone.waf_product === 'previous'
      ? state === 'pending' || (state === 'validation' && zone.plan === 'enterprise')
      : state === 'completed'
  if (!possible) {
    throw conflict(
      `A zone whose waf_product is ${zone.waf_product} on the ${zone.plan} plan cannot be in the ${state} state of its migration.`,
      '/waf_migration/migration_state',
    )
  }
}

/** Runs `work` with a namespace of zone objects outside the data dir, without history, then removes it. */
async function inScratchZones<R>(
  work: (scratch: ObjectNamespace<undefined, ZoneObject>) => Promise<R>,
): Promise<R> {
  const directory = mkdtempSync(join(tmpdir(), 'zone-workbench-scratch-'))
  const scratch = new ObjectNamespace({
    directory,
    objectClass: ZoneObject,
    env: undefined,
    history: false,
  })
  try {
    return await work(scratch)
  } finally {
    await scratch.close()
    rmSync(directory, { recursive: true, force: true })
  }
}

export class Bundles {
  private readonly clock: Clock

  constructor(private readonly options: BundlesOptions) {
    this.clock = options.clock ?? systemClock
  }

  private get zones() {
    return this.options.zones
  }

  async exportBundle(zoneId: string): Promise<ZoneBundle> {
    const content = await this.zones.inZone(zoneId, (zone, record) => this.read(zone, record))
    const limits = await this.options.events.status(zoneId)
    return {
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      exported_at: new Date(this.clock.now()).toISOString(),
      ...content,
      event_log_settings: eventLogSettings(limits),
    }
  }

  /**
   * The zone's configuration at the point `bookmark` names against the configuration it has now:
   * what differs, resource by resource, and a unified diff of the two bundles' text. The point's
   * database is copied out of the zone's history into a scratch object outside the data dir and
   * read there, so the zone itself is only read.
   */
  compareWithPoint(zoneId: string, bookmark: string): Promise<HistoryComparison> {
    return inScratchZones(async (scratch) => {
      const pointId = scratch.newUniqueId()
      const { now, refusal } = await this.zones.inZone(zoneId, (zone, record) => {
        try {
          zone.copyHistoryPoint(bookmark, scratch.fileOf(pointId))
        } catch (error) {
          return { refusal: error instanceof Error ? error.message : String(error) }
        }
        return { now: this.read(zone, record) }
      })
      const then = await scratch.call(pointId, (zone) => {
        const record = zone.record()
        return record && this.read(zone, record)
      })
      if (now === undefined || then === undefined) {
        throw badRequest(
          API_ERRORS.invalidRequest,
          `Cannot compare with ${bookmark}: ${refusal ?? 'that point is from before the zone was created.'}`,
        )
      }
      // The event log's caps have no history, and an export time is no content: both texts take
      // the same, so that the diff shows the configuration only.
      const limits = eventLogSettings(await this.options.events.status(zoneId))
      const text = (content: ZoneContent) =>
        bundleText({
          format: BUNDLE_FORMAT,
          version: BUNDLE_VERSION,
          exported_at: new Date(0).toISOString(),
          ...content,
          event_log_settings: limits,
        })
      return {
        bookmark,
        changes: diffConfigurations(
          { ...then, event_log_settings: limits },
          { ...now, event_log_settings: limits },
        ),
        patch: createTwoFilesPatch('at the point', 'now', text(then), text(now)),
      }
    })
  }

  /** The bundle of the zone named `name`, if there is one. */
  async bundleOfZoneNamed(name: string): Promise<ZoneBundle | undefined> {
    const [zone] = (await this.zones.list({ name, page: 1, perPage: 1 })).zones
    return zone === undefined ? undefined : this.exportBundle(zone.id)
  }

  async importBundle(input: unknown, options: ImportOptions = {}): Promise<BundleImportResult> {
    const { format: _format, version: _version, exported_at: _at, ...after } = checkBundle(input)
    const { zone } = after
    if (!isValidZoneName(zone.name)) {
      throw badRequest(
        API_ERRORS.invalidZoneName,
        `${JSON.stringify(zone.name)} is not a valid domain name for a zone.`,
        {
          source: { pointer: '/zone/name' },
        },
      )
    }
    if ((zone.waf_product === 'previous') !== (after.previous_waf !== undefined)) {
      throw conflict(
        zone.waf_product === 'previous'
          ? 'A zone on the previous WAF needs its previous_waf settings in the bundle.'
          : 'previous_waf applies only to a zone whose waf_product is previous.',
        '/previous_waf',
      )
    }
    if (zone.waf_product === 'previous' && zone.plan === 'free') {
      throw previousProductOnFree({ source: { pointer: '/zone/plan' } })
    }
    checkMigration(after)
    const [existing] = (await this.zones.list({ name: zone.name, page: 1, perPage: 1 })).zones
    return existing === undefined
      ? this.create(after, options)
      : this.replace(existing.id, after, options)
  }

  private async create(after: BundleContent, options: ImportOptions): Promise<BundleImportResult> {
    const record: ZoneRecord = { ...after.zone }
    if (await this.zones.holds(record.id)) {
      throw badRequest(API_ERRORS.exists, `A zone with the id ${record.id} exists.`, {
        source: { pointer: '/zone/id' },
      })
    }
    const changes = diffConfigurations(undefined, after)
    await this.rehearse(record, undefined, after)
    const answer = { zone: { id: record.id, name: record.name }, changes }
    if (options.dryRun) return answer
    // The configuration is written with the zone's record, in one transaction: a kill leaves the
    // whole zone or none of it (ZoneRegistry.adopt). The event log's caps live in their own
    // object, set just after.
    await this.zones.adopt(record, (zone) => {
      this.applyToNew(zone, record, after)
      zone.describe(
        `Zone configuration imported from a bundle: ${plural(changes.length, 'change')}`,
      )
    })
    const limits = eventLogSettings(await this.options.events.status(record.id))
    await this.setEventLimits(record.id, limits, after)
    return answer
  }

  private async replace(
    zoneId: string,
    incoming: BundleContent,
    options: ImportOptions,
  ): Promise<BundleImportResult> {
    const limits = eventLogSettings(await this.options.events.status(zoneId))
    const { record, before } = await this.zones.inZone(zoneId, (zone, record) => ({
      record,
      before: this.read(zone, record),
    }))
    if (record.waf_product !== incoming.zone.waf_product) {
      throw conflict(
        `The zone ${record.name} runs ${record.waf_product === 'previous' ? 'the previous WAF' : 'managed rulesets'}: a zone's WAF product is set when it is created, so this bundle cannot replace its configuration.`,
        '/zone/waf_product',
      )
    }
    const migration = (content: ZoneContent) =>
      `${content.waf_migration?.migration_state ?? 'start'} ${content.waf_migration?.created ?? ''}`
    if (migration(before) !== migration(incoming)) {
      throw conflict(
        `The zone ${record.name}'s migration off the previous WAF stands elsewhere (${before.waf_migration?.migration_state ?? 'not begun'}): an import cannot move a migration, so this bundle cannot replace its configuration.`,
        '/waf_migration',
      )
    }
    // The zone keeps its own id and creation time; the bundle's settings and content apply.
    const after = {
      ...incoming,
      zone: { ...incoming.zone, id: record.id, created_on: record.created_on },
    }
    const answer = (changes: ConfigurationChange[]) => ({
      zone: { id: record.id, name: record.name },
      changes,
    })
    const planned = diffConfigurations({ ...before, event_log_settings: limits }, after)
    const inZone = (changes: ConfigurationChange[]) =>
      changes.filter((change) => change.kind !== 'event_log_settings')
    if (inZone(planned).length > 0) await this.rehearse(record, before, after)
    if (options.dryRun) return answer(planned)
    const changes = await this.zones.inZone(zoneId, (zone, current) =>
      zone.change(() => {
        // Read again within the change: it applies to the zone as it stands now.
        const now = this.read(zone, current)
        const found = diffConfigurations({ ...now, event_log_settings: limits }, after)
        if (inZone(found).length === 0) return found
        const { plan, type, paused } = after.zone
        applyConfiguration(zone, this.parts(zone, { ...current, plan, type, paused }), now, after)
        zone.describe(
          `Zone configuration imported from a bundle: ${plural(inZone(found).length, 'change')}`,
        )
        if (plan !== current.plan || type !== current.type || paused !== current.paused) {
          zone.update({ plan, type, paused, modified_on: vendorTimestamp(this.clock.now()) })
        }
        return found
      }),
    )
    await this.setEventLimits(zoneId, limits, incoming)
    return answer(changes)
  }

  private parts(zone: ZoneObject, record: ZoneRecord) {
    return this.options.configuration.zoneParts(zone, record, UNDESCRIBED)
  }

  private read(zone: ZoneObject, record: ZoneRecord): ZoneContent {
    return readConfiguration(zone, record, this.parts(zone, record))
  }

  /** Writes `content` into a zone that holds no configuration yet. */
  private applyToNew(zone: ZoneObject, record: ZoneRecord, content: ZoneContent): void {
    applyConfiguration(zone, this.parts(zone, record), this.read(zone, record), content)
  }

  /**
   * Makes the zone as `record` and `before` say (a new zone: as the bundle's record says) in a
   * scratch object of its own, outside the data dir, applies the bundle there and rolls it all
   * back: a bundle the API would refuse is refused here, before the zone's own object is written
   * (a refused change that had written there would still leave a point in its history).
   */
  private async rehearse(
    record: ZoneRecord,
    before: ZoneContent | undefined,
    after: BundleContent,
  ): Promise<void> {
    const { plan, type, paused } = after.zone
    await inScratchZones((scratch) =>
      scratch.call(scratch.newUniqueId(), (zone) =>
        zone.change(
          () => {
            zone.initialize(record)
            if (before !== undefined) this.applyToNew(zone, record, before)
            const next = { ...record, plan, type, paused }
            applyConfiguration(zone, this.parts(zone, next), this.read(zone, next), after)
          },
          { dryRun: true },
        ),
      ),
    )
  }

  private async setEventLimits(
    zoneId: string,
    current: BundleContent['event_log_settings'],
    after: BundleContent,
  ): Promise<void> {
    const wanted = after.event_log_settings
    if (wanted.max_events === current.max_events && wanted.max_bytes === current.max_bytes) return
    // A cap equal to the default is stored as the default, so that it follows the default.
    const setting = (key: keyof EventLogSettings): number | null =>
      wanted[key] === DEFAULT_EVENT_LIMITS[key] ? null : wanted[key]
    await this.options.events.setLimits(zoneId, {
      max_events: setting('max_events'),
      max_bytes: setting('max_bytes'),
    })
  }
}
