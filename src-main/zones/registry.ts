// The zones an account holds: create, list, look up, edit, rename, delete. Business rules live
// here (names are domains and unique, plans are known); the shape of a request body is checked
// earlier, at the boundary that received it.

import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import { ApiError, badRequest, couldNotRoute, isVendorId } from '@shared/api/errors'
import {
  isValidZoneName,
  type WafProduct,
  type Zone,
  type ZoneCreate,
  type ZoneEdit,
  type ZonePlan,
  type ZoneType,
} from '@shared/api/zones'
import { planInfo, resolvePlan } from './plans'

interface ZoneRow {
  id: string
  name: string
  type: ZoneType
  plan: ZonePlan
  waf_product: WafProduct
  paused: number
  created_on: string
  modified_on: string
}

export const ACCOUNT = { id: '01a7362d577a6c3019a474fd6f485823', name: 'Zone Workbench' }

/** The vendor's timestamps: RFC 3339 UTC with microseconds. */
export function vendorTimestamp(ms: number): string {
  return new Date(ms).toISOString().replace('Z', '000Z')
}

export const newVendorId = (): string => randomBytes(16).toString('hex')

export interface ZoneQuery {
  name?: string
  page: number
  perPage: number
}

export class ZoneRegistry {
  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {}

  list(query: ZoneQuery): { zones: Zone[]; total: number } {
    const where = query.name === undefined ? '' : 'WHERE name = @name'
    const params = {
      name: query.name?.toLowerCase(),
      limit: query.perPage,
      offset: (query.page - 1) * query.perPage,
    }
    const total = (
      this.db.prepare(`SELECT count(*) AS n FROM zones ${where}`).get(params) as { n: number }
    ).n
    const rows = this.db
      .prepare(`SELECT * FROM zones ${where} ORDER BY name LIMIT @limit OFFSET @offset`)
      .all(params) as ZoneRow[]
    return { zones: rows.map(toZone), total }
  }

  /** The zone, or the vendor's 7003 for an id that names none. */
  get(id: string): Zone {
    const row = isVendorId(id)
      ? (this.db.prepare('SELECT * FROM zones WHERE id = ?').get(id) as ZoneRow | undefined)
      : undefined
    if (!row) throw couldNotRoute(`/zones/${id}`)
    return toZone(row)
  }

  create(input: ZoneCreate): Zone {
    const name = checkedName(input.name)
    const plan = input.plan === undefined ? 'free' : checkedPlan(input.plan)
    if (input.account !== undefined && input.account.id !== ACCOUNT.id) {
      throw new ApiError(403, 9109, 'Unauthorized to access requested resource')
    }
    this.refuseDuplicate(name)
    const at = vendorTimestamp(this.now())
    const row: ZoneRow = {
      id: newVendorId(),
      name,
      type: input.type ?? 'full',
      plan,
      waf_product: input.waf_product ?? 'managed_rulesets',
      paused: 0,
      created_on: at,
      modified_on: at,
    }
    this.db
      .prepare(
        `INSERT INTO zones (id, name, type, plan, waf_product, paused, created_on, modified_on)
         VALUES (@id, @name, @type, @plan, @waf_product, @paused, @created_on, @modified_on)`,
      )
      .run(row)
    return toZone(row)
  }

  edit(id: string, edit: ZoneEdit): Zone {
    const zone = this.get(id)
    const changes: Partial<ZoneRow> = {}
    if (edit.paused !== undefined) changes.paused = edit.paused ? 1 : 0
    if (edit.type !== undefined) changes.type = edit.type
    if (edit.plan !== undefined) changes.plan = checkedPlan(edit.plan)
    return this.update(zone.id, changes)
  }

  /** Zone names are fixed in the vendor's API; renaming is the workbench's own operation. */
  rename(id: string, newName: string): Zone {
    const zone = this.get(id)
    const name = checkedName(newName)
    if (name !== zone.name) this.refuseDuplicate(name)
    return this.update(zone.id, { name })
  }

  delete(id: string): { id: string } {
    const zone = this.get(id)
    this.db.prepare('DELETE FROM zones WHERE id = ?').run(zone.id)
    return { id: zone.id }
  }

  private update(id: string, changes: Partial<ZoneRow>): Zone {
    const columns = Object.keys(changes)
    if (columns.length > 0) {
      const assignments = [...columns, 'modified_on'].map((c) => `${c} = @${c}`).join(', ')
      this.db
        .prepare(`UPDATE zones SET ${assignments} WHERE id = @id`)
        .run({ ...changes, modified_on: vendorTimestamp(this.now()), id })
    }
    return this.get(id)
  }

  private refuseDuplicate(name: string): void {
    if (this.db.prepare('SELECT 1 FROM zones WHERE name = ?').get(name)) {
      throw badRequest(1061, `${name} already exists.`)
    }
  }
}

function checkedName(raw: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '')
  if (!isValidZoneName(name)) {
    throw badRequest(1099, `${JSON.stringify(raw)} is not a valid domain name for a zone.`)
  }
  return name
}

function checkedPlan(plan: ZonePlan | { id: string }): ZonePlan {
  const resolved = resolvePlan(plan)
  if (resolved === undefined) {
    throw badRequest(
      1004,
      `Unknown plan ${JSON.stringify(plan)}: use free, pro, business or enterprise.`,
    )
  }
  return resolved
}

function toZone(row: ZoneRow): Zone {
  return {
    id: row.id,
    name: row.name,
    status: 'active',
    paused: row.paused === 1,
    type: row.type,
    development_mode: 0,
    name_servers: ['ada.ns.cloudflare.com', 'bob.ns.cloudflare.com'],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    created_on: row.created_on,
    modified_on: row.modified_on,
    activated_on: row.created_on,
    account: ACCOUNT,
    owner: { id: null, type: 'user', email: null },
    permissions: ['#zone:read', '#zone:edit', '#waf:read', '#waf:edit'],
    plan: planInfo(row.plan),
    meta: { phishing_detected: false, cdn_only: false, dns_only: false },
    waf_product: row.waf_product,
  }
}
