// The zones an account holds: create, list, look up, edit, rename, delete. Business rules live
// here (names are domains and unique, plans are known); the shape of a request body is checked
// earlier, at the boundary that received it. State lives in objects: the account object indexes
// the zones, and each zone's object holds the zone.
//
// One piece over 500 lines: every change here spans the account's index and a zone's object, and
// they share what keeps the two in agreement (the index's pending intents, one change per zone at
// a time, recover() finishing or undoing each kind of change); apart, each would need the others'.

import { join } from 'node:path'
import { ApiError, badRequest, couldNotRoute, isVendorId } from '@shared/api/errors'
import {
  isValidZoneName,
  isValidHostName,
  nameMatches,
  type NameSearch,
  parseNameSearch,
  type Zone,
  type ZoneListSearch,
  type ZoneCreate,
  type ZoneEdit,
  type ZonePlan,
} from '@shared/api/zones'
import { ObjectNamespace, systemClock, type Clock } from '../objects'
import { isTimelineEndBookmark, restoredBookmark } from '../storage'
import type { HistoryEntry } from '@shared/api/history'
import { AccountObject, type PendingChange } from './account-object'
import type { ManagedRuleset } from './rulesets/catalog'
import { CredentialsObject } from './credentials'
import { EventLog } from './events'
import { planInfo, resolvePlan } from './plans'
import { newVendorId, vendorTimestamp } from './vendor-format'
import { ZoneObject, type ZoneRecord } from './zone-object'
import { API_ERRORS } from '@shared/api/error-codes'

export const ACCOUNT = { id: '01a7362d577a6c3019a474fd6f485823', name: 'Zone Workbench' }

export interface ZoneQuery extends ZoneListSearch {
  page: number
  perPage: number
}

export interface ZoneObjects {
  accounts: ObjectNamespace<undefined, AccountObject>
  zones: ObjectNamespace<undefined, ZoneObject>
  /** the leaked-credential database (reference data: no history) */
  credentials: ObjectNamespace<undefined, CredentialsObject>
  /** each zone's security events, by zone id (traffic, not configuration: no history) */
  events: ObjectNamespace<undefined, EventLog>
}

/** The object namespaces of a data dir: `<dataDir>/objects/<namespace>/`. */
export function openZoneObjects(dataDir: string, clock?: Clock): ZoneObjects {
  const directory = (name: string) => join(dataDir, 'objects', name)
  return {
    accounts: new ObjectNamespace({
      directory: directory('account'),
      objectClass: AccountObject,
      env: undefined,
      clock,
    }),
    zones: new ObjectNamespace({
      directory: directory('zone'),
      objectClass: ZoneObject,
      env: undefined,
      clock,
    }),
    credentials: new ObjectNamespace({
      directory: directory('credentials'),
      objectClass: CredentialsObject,
      env: undefined,
      clock,
      history: false,
    }),
    events: new ObjectNamespace({
      directory: directory('events'),
      objectClass: EventLog,
      env: undefined,
      clock,
      history: false,
    }),
  }
}

export class ZoneRegistry {
  private readonly zoneQueues = new Map<string, Promise<void>>()

  constructor(
    private readonly objects: ZoneObjects,
    private readonly clock: Clock = systemClock,
  ) {}

  private account<R>(work: (account: AccountObject) => R): Promise<Awaited<R>> {
    return this.objects.accounts.call(this.objects.accounts.idFromName(ACCOUNT.id), work)
  }

  /** Runs `work` in the account's object; the vendor's 7003 for an id that is not the account's. */
  inAccount<R>(id: string, work: (account: AccountObject) => R): Promise<Awaited<R>> {
    if (id !== ACCOUNT.id) throw couldNotRoute(`/accounts/${id}`)
    return this.account(work)
  }

  /** Installs the managed-ruleset catalog into the account; answers every version it holds. */
  installCatalog(rulesets: readonly ManagedRuleset[]): Promise<ManagedRuleset[]> {
    return this.account((a) => a.installManagedRulesets(rulesets))
  }

  /** Runs `work` in the zone's object; the vendor's 7003 for an id that names no zone. */
  async inZone<R>(
    id: string,
    work: (zone: ZoneObject, record: ZoneRecord) => R,
  ): Promise<Awaited<R>> {
    if (!isVendorId(id) || !(await this.account((a) => a.has(id))))
      throw couldNotRoute(`/zones/${id}`)
    return this.inIndexedZone(id, work)
  }

  /** As inZone, for an id just read from the account's index (no second look at the index). */
  private inIndexedZone<R>(
    id: string,
    work: (zone: ZoneObject, record: ZoneRecord) => R,
  ): Promise<Awaited<R>> {
    return this.objects.zones.call(this.objects.zones.idFromName(id), (zone) => {
      const record = zone.record()
      if (record === undefined) throw couldNotRoute(`/zones/${id}`)
      return work(zone, record)
    })
  }

  async list(query: ZoneQuery): Promise<{ zones: Zone[]; total: number }> {
    // Every zone is active and the account's, so these requirements hold for all zones or none.
    const constant = [
      query.status === undefined ? undefined : query.status === 'active',
      query['account.id'] === undefined ? undefined : query['account.id'] === ACCOUNT.id,
      query['account.name'] === undefined
        ? undefined
        : nameMatches(parseNameSearch(query['account.name']), ACCOUNT.name),
    ].filter((met) => met !== undefined)
    const name = query.name === undefined ? undefined : parseNameSearch(query.name)
    // The index holds neither types nor plans: these read every zone listed, then page.
    if (query.type !== undefined || query.order === 'plan.id')
      return this.listReadingZones(query, constant, name)
    const everyZone =
      query.match === 'any'
        ? constant.includes(true) || (constant.length === 0 && name === undefined)
        : !constant.includes(false) && name === undefined
    const noZone =
      query.match === 'any' ? !everyZone && name === undefined : constant.includes(false)
    if (noZone) return { zones: [], total: 0 }
    const { ids, total } = await this.account((a) =>
      a.list({
        ...(everyZone || name === undefined ? {} : { name }),
        // The other orders are by a value every zone shares: they keep the order by name.
        descending: (query.order ?? 'name') === 'name' && query.direction === 'desc',
        offset: (query.page - 1) * query.perPage,
        limit: query.perPage,
      }),
    )
    const zones = await Promise.all(
      ids.map((id) => this.inIndexedZone(id, (_zone, record) => toZone(record))),
    )
    return { zones, total }
  }

  /**
   * The list when it asks for what only the zones hold (`type`, the order by `plan.id`): every
   * zone the index lists (by name, when every requirement must hold) is read, the requirements
   * are met in memory (all of them, or any one with `match=any`), then the list is sorted and
   * paged.
   */
  private async listReadingZones(
    query: ZoneQuery,
    constant: boolean[],
    name: NameSearch | undefined,
  ): Promise<{ zones: Zone[]; total: number }> {
    const any = query.match === 'any'
    if (!any && constant.includes(false)) return { zones: [], total: 0 }
    const { ids } = await this.account((a) =>
      a.list({
        ...(any || name === undefined ? {} : { name }),
        descending: (query.order ?? 'name') === 'name' && query.direction === 'desc',
        offset: 0,
        limit: Number.MAX_SAFE_INTEGER,
      }),
    )
    const read = await Promise.all(
      ids.map((id) => this.inIndexedZone(id, (_zone, record) => toZone(record))),
    )
    const types: readonly string[] | undefined = query.type
    const zones = read.filter((zone) => {
      const met = [
        ...constant,
        ...(name === undefined ? [] : [nameMatches(name, zone.name)]),
        ...(types === undefined ? [] : [types.includes(zone.type)]),
      ]
      return any ? met.length === 0 || met.includes(true) : !met.includes(false)
    })
    if (query.order === 'plan.id') {
      const sign = query.direction === 'desc' ? -1 : 1
      zones.sort((a, b) => sign * a.plan.id.localeCompare(b.plan.id))
    }
    const offset = (query.page - 1) * query.perPage
    return { zones: zones.slice(offset, offset + query.perPage), total: zones.length }
  }

  /** Whether the index holds `id` in any state (a zone being created or deleted included). */
  holds(id: string): Promise<boolean> {
    return this.account((a) => a.holds(id))
  }

  get(id: string): Promise<Zone> {
    return this.inZone(id, (_zone, record) => toZone(record))
  }

  async create(input: ZoneCreate): Promise<Zone> {
    const name = checkedName(input.name)
    const plan = input.plan === undefined ? 'free' : checkedPlan(input.plan)
    if (input.account !== undefined && input.account.id !== ACCOUNT.id) {
      throw new ApiError(403, API_ERRORS.unauthorized, 'Unauthorized to access requested resource')
    }
    if (input.waf_product === 'previous' && plan === 'free') throw previousProductOnFree()
    const at = vendorTimestamp(this.clock.now())
    return toZone(
      await this.adopt({
        id: newVendorId(),
        name,
        type: input.type ?? 'full',
        plan,
        waf_product: input.waf_product ?? 'managed_rulesets',
        paused: false,
        created_on: at,
        modified_on: at,
      }),
    )
  }

  /**
   * Stores a zone whose record is complete and checked (a new zone, or one being imported): the
   * index claims the name with the create pending, the zone's object is written, the index
   * settles. A kill in between is finished or undone by `recover`. `configure` writes what the
   * zone holds besides its record (an imported configuration) in the same transaction, so a zone
   * is never stored without it.
   */
  adopt(
    record: ZoneRecord,
    configure?: (zone: ZoneObject, record: ZoneRecord) => void,
  ): Promise<ZoneRecord> {
    return this.exclusively(record.id, async () => {
      await this.account((a) => {
        if (a.holderOf(record.name) !== undefined) throw duplicate(record.name)
        if (a.holds(record.id))
          throw badRequest(API_ERRORS.exists, `A zone with the id ${record.id} exists.`)
        a.addPending({ id: record.id, name: record.name, created_on: record.created_on })
      })
      try {
        await this.zoneObject(record.id, (z) =>
          z.change(() => {
            z.initialize(record)
            configure?.(z, record)
          }),
        )
      } catch (error) {
        await this.forget(record.id)
        throw error
      }
      await this.account((a) => a.settle(record.id))
      return record
    })
  }

  async edit(id: string, edit: ZoneEdit): Promise<Zone> {
    const changes: Partial<ZoneRecord> = { modified_on: vendorTimestamp(this.clock.now()) }
    if (edit.paused !== undefined) changes.paused = edit.paused
    if (edit.type !== undefined) changes.type = edit.type
    if (edit.plan !== undefined) changes.plan = checkedPlan(edit.plan)
    if (edit.vanity_name_servers !== undefined)
      changes.vanity_name_servers = checkedNameServers(edit.vanity_name_servers)
    return toZone(
      await this.inZone(id, (zone, record) => {
        if (changes.plan === 'free' && record.waf_product === 'previous')
          throw previousProductOnFree()
        return zone.change(() => zone.update(changes))
      }),
    )
  }

  /**
   * Zone names are fixed in the vendor's API; renaming is the workbench's own operation. The
   * index is the authority on names (it keeps them unique), so it changes first; a kill before
   * the zone's object follows is repaired by `recover`, which gives the zone the index's name.
   */
  rename(id: string, newName: string): Promise<Zone> {
    const name = checkedName(newName)
    return this.exclusively(id, async () => {
      await this.get(id)
      await this.account((a) => {
        const holder = a.holderOf(name)
        if (holder !== undefined && holder !== id) throw duplicate(name)
        a.rename(id, name)
      })
      return toZone(
        await this.inZone(id, (zone) =>
          zone.change(() => zone.update({ name, modified_on: vendorTimestamp(this.clock.now()) })),
        ),
      )
    })
  }

  /**
   * Deletes a zone: the index marks it deleted (from then on nothing routes to it and it is not
   * listed), its objects are erased (database file, log, history and events), and its row goes.
   * A kill in between is finished by `recover`.
   */
  delete(id: string): Promise<{ id: string }> {
    return this.exclusively(id, async () => {
      await this.inZone(id, () => undefined)
      await this.account((a) => a.markPending(id, { kind: 'delete' }))
      await this.forget(id)
      return { id }
    })
  }

  /** Erases a zone's objects, then its row of the index (which held its name until then). */
  private async forget(id: string): Promise<void> {
    await this.objects.zones.erase(this.objects.zones.idFromName(id))
    await this.objects.events.erase(this.objects.events.idFromName(id))
    await this.account((a) => a.remove(id))
  }

  /**
   * Points in the zone's history, newest first: each restore with the point it went back to, and
   * each point a restore would be refused with why (those from before a migration that cannot be
   * undone; see restore).
   */
  async history(
    id: string,
    options: { limit?: number; before?: string } = {},
  ): Promise<HistoryEntry[]> {
    const { points, migrationStart } = await this.inZone(id, (zone) => ({
      points: zone.history(options),
      migrationStart: zone.migrationStart(),
    }))
    const listed = new Map(points.map((point) => [point.bookmark, point]))
    const iso = (time: number) => new Date(time).toISOString()
    return points.map((point) => {
      const target = restoredBookmark(point.note)
      const restored = target === undefined ? undefined : listed.get(target)
      return {
        bookmark: point.bookmark,
        time: iso(point.time),
        note: point.note ?? null,
        restored_to:
          target === undefined
            ? null
            : {
                bookmark: target,
                undo: isTimelineEndBookmark(target),
                time: restored === undefined ? null : iso(restored.time),
                note: restored?.note ?? null,
              },
        restore_refusal:
          migrationStart !== undefined && point.time < migrationStart.time
            ? BEFORE_MIGRATION
            : null,
      }
    })
  }

  /**
   * Restores the zone to the state it had at `bookmark`. The restore happens as the zone's object
   * restarts; a point from before the zone existed, from before its migration began, or whose
   * name another zone now holds, is undone at once and refused. The intent (with the bookmark
   * that undoes it) is in the index first, so a kill at any step is settled by `recover` the same
   * way: kept if allowed, undone if not.
   */
  restore(id: string, bookmark: string): Promise<{ restored: string; undo: string }> {
    return this.exclusively(id, async () => {
      const { migratingBefore, current } = await this.inZone(id, async (zone) => ({
        migratingBefore: zone.migrationUnderway(),
        current: await zone.currentBookmark(),
      }))
      const intent = { kind: 'restore', bookmark, undo: current, migratingBefore } as const
      await this.account((a) => a.markPending(id, intent))
      let undo: string
      try {
        undo = await this.scheduleRestore(id, bookmark)
      } catch (error) {
        await this.account((a) => a.settle(id))
        throw error
      }
      const refusal = await this.settleRestore(id, intent)
      if (refusal !== undefined)
        throw badRequest(API_ERRORS.restoreRefused, `Cannot restore to ${bookmark}: ${refusal}`)
      return { restored: bookmark, undo }
    })
  }

  /**
   * Keeps a restore whose result the index can take (renaming the zone in the index to the
   * restored name), or undoes it; answers why it was refused, if it was.
   */
  private async settleRestore(
    id: string,
    intent: Extract<PendingChange, { kind: 'restore' }>,
  ): Promise<string | undefined> {
    const { record, migrating } = await this.zoneObject(id, (z) => ({
      record: z.record(),
      migrating: z.migrationUnderway(),
    }))
    const refusal =
      record === undefined
        ? 'That point is from before the zone was created.'
        : intent.migratingBefore && !migrating
          ? BEFORE_MIGRATION
          : await this.account((a) => {
              const holder = a.holderOf(record.name)
              if (holder !== undefined && holder !== id)
                return `Another zone now holds the name ${record.name}.`
              a.rename(id, record.name)
              a.settle(id)
              return undefined
            })
    if (refusal !== undefined) {
      await this.scheduleRestore(id, intent.undo)
      // The object restarts into the undone state before the intent is cleared.
      await this.zoneObject(id, (z) => z.record())
      await this.account((a) => a.settle(id))
    }
    return refusal
  }

  /** Also for a zone object that holds no zone (the undo of a refused restore). */
  private async scheduleRestore(id: string, bookmark: string): Promise<string> {
    try {
      return await this.zoneObject(id, (z) => z.scheduleRestore(bookmark))
    } catch (error) {
      // History refuses malformed and foreign bookmarks, and points outside its 30-day window.
      throw badRequest(
        API_ERRORS.restoreRefused,
        `Cannot restore to ${bookmark}: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
  }

  /**
   * Brings the index and the zones' objects back into agreement after a start that may follow a
   * kill: each pending change is finished or undone, a row whose zone was never stored goes, a
   * zone whose name differs from its row takes the row's name, and the objects of zones the
   * index no longer holds (a delete killed by an older version) are erased. Answers what it
   * repaired, one sentence each.
   */
  async recover(): Promise<string[]> {
    const repaired: string[] = []
    for (const row of await this.account((a) => a.rows())) {
      const pending = row.pending
      if (pending?.kind === 'delete') {
        await this.forget(row.id)
        repaired.push(`Finished deleting zone ${row.name} (${row.id}).`)
        continue
      }
      if (pending?.kind === 'restore') {
        const refusal = await this.settleRestore(row.id, pending)
        repaired.push(
          refusal === undefined
            ? `Finished restoring zone ${row.name} (${row.id}) to ${pending.bookmark}.`
            : `Undid the restore of zone ${row.name} (${row.id}) to ${pending.bookmark}: ${refusal}`,
        )
        continue
      }
      const record = await this.zoneObject(row.id, (z) => z.record())
      if (record === undefined) {
        await this.forget(row.id)
        repaired.push(
          pending?.kind === 'create'
            ? `Undid the creation of zone ${row.name} (${row.id}): it was interrupted before the zone was stored.`
            : `Removed zone ${row.name} (${row.id}) from the index: it holds no zone.`,
        )
        continue
      }
      if (pending?.kind === 'create') {
        await this.account((a) => a.settle(row.id))
        repaired.push(`Finished creating zone ${row.name} (${row.id}).`)
      }
      if (record.name !== row.name) {
        await this.zoneObject(row.id, (z) => z.change(() => z.update({ name: row.name })))
        repaired.push(`Zone ${row.id} takes its indexed name ${row.name} (it was ${record.name}).`)
      }
    }
    const indexed = new Set(
      (await this.account((a) => a.rows())).map((row) =>
        this.objects.zones.idFromName(row.id).toString(),
      ),
    )
    for (const namespace of [this.objects.zones, this.objects.events] as const) {
      for (const objectId of namespace.ids()) {
        if (indexed.has(objectId.toString())) continue
        await (namespace as ObjectNamespace<undefined, unknown>).erase(objectId)
        repaired.push(`Erased the remains of a deleted zone (object ${objectId.toString()}).`)
      }
    }
    return repaired
  }

  /** Runs `work` in zone `id`'s object, whatever the index says of it. */
  private zoneObject<R>(id: string, work: (zone: ZoneObject) => R): Promise<Awaited<R>> {
    return this.objects.zones.call(this.objects.zones.idFromName(id), work)
  }

  /**
   * Runs the changes that span the index and a zone's object one at a time per zone, so that two
   * of them cannot interleave their steps (a rename racing a restore would leave the index and
   * the zone naming it differently).
   */
  private exclusively<R>(id: string, work: () => Promise<R>): Promise<R> {
    const previous = this.zoneQueues.get(id) ?? Promise.resolve()
    const next = previous.then(work, work)
    const settled = next.then(
      () => undefined,
      () => undefined,
    )
    this.zoneQueues.set(id, settled)
    void settled.then(() => {
      if (this.zoneQueues.get(id) === settled) this.zoneQueues.delete(id)
    })
    return next
  }

  async close(): Promise<void> {
    await Promise.all([
      this.objects.zones.close(),
      this.objects.accounts.close(),
      this.objects.credentials.close(),
    ])
  }
}

const BEFORE_MIGRATION =
  'That point is from before the zone began its migration to WAF managed rulesets, which cannot be undone.'

const duplicate = (name: string) => badRequest(API_ERRORS.exists, `${name} already exists.`)

/** The refusal of the previous product on the Free plan (`details` may point at the plan). */
export const previousProductOnFree = (details?: ApiError['details']) =>
  badRequest(
    API_ERRORS.invalidSetting,
    'The previous WAF managed rules need a Pro, Business or Enterprise plan: a Free zone cannot run them.',
    details,
  )

function checkedName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '')
  if (!isValidZoneName(name)) {
    throw badRequest(
      API_ERRORS.invalidZoneName,
      `${JSON.stringify(raw)} is not a valid domain name for a zone.`,
    )
  }
  return name
}

function checkedPlan(plan: ZonePlan | { id: string }): ZonePlan {
  const resolved = resolvePlan(plan)
  if (resolved === undefined) {
    throw badRequest(
      API_ERRORS.invalidSetting,
      `Unknown plan ${JSON.stringify(plan)}: use free, pro, business or enterprise.`,
    )
  }
  return resolved
}

/** Vanity name servers are host names (`ns1.example.com`), each given once. */
function checkedNameServers(names: string[]): string[] {
  names.forEach((name, index) => {
    if (!isValidHostName(name) || names.indexOf(name) !== index) {
      throw badRequest(
        API_ERRORS.invalidSetting,
        names.indexOf(name) !== index
          ? `The vanity name server ${JSON.stringify(name)} is given twice.`
          : `Invalid vanity name server ${JSON.stringify(name)}: give a host name such as ns1.example.com.`,
        { source: { pointer: `/vanity_name_servers/${index}` } },
      )
    }
  })
  return names
}

function toZone(record: ZoneRecord): Zone {
  return {
    id: record.id,
    name: record.name,
    status: 'active',
    paused: record.paused,
    type: record.type,
    development_mode: 0,
    // Internal DNS zones are not assigned Cloudflare name servers.
    name_servers:
      record.type === 'internal' ? [] : ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: record.created_on,
    modified_on: record.modified_on,
    activated_on: record.created_on,
    account: ACCOUNT,
    owner: { id: null, type: 'user', email: null },
    permissions: ['#zone:read', '#zone:edit', '#waf:read', '#waf:edit'],
    plan: planInfo(record.plan),
    meta: { phishing_detected: false, cdn_only: false, dns_only: false },
    waf_product: record.waf_product,
    vanity_name_servers: record.vanity_name_servers ?? [],
  }
}
