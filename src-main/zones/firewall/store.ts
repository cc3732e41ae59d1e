// Where a zone keeps its filters, its firewall rules and their one setting (the rule quota).
// Both lists keep the order they were created in: it is the order the vendor lists them in, and
// the order rules without a priority run in.

import type { ObjectContext } from '../../objects'
import type { Filter, FirewallAction, FirewallProduct, FirewallRule } from '@shared/api/firewall'

export const FIREWALL_SCHEMA: readonly string[] = [
  `CREATE TABLE filters (
     id TEXT PRIMARY KEY, expression TEXT NOT NULL, paused INTEGER NOT NULL,
     description TEXT, ref TEXT, seq INTEGER NOT NULL)`,
  `CREATE TABLE firewall_rules (
     id TEXT PRIMARY KEY, filter_id TEXT NOT NULL, action TEXT NOT NULL, priority INTEGER,
     paused INTEGER NOT NULL, description TEXT, ref TEXT, products TEXT,
     created_on TEXT NOT NULL, modified_on TEXT NOT NULL, seq INTEGER NOT NULL)`,
  `CREATE TABLE firewall_settings (key TEXT PRIMARY KEY, value)`,
]

/** A firewall rule as stored: the API's rule with its filter by id. */
export type StoredFirewallRule = Omit<FirewallRule, 'filter'> & { filter_id: string }

const optional = (value: unknown): string | undefined =>
  value === null || value === undefined ? undefined : String(value)

function toFilter(row: Record<string, unknown>): Filter {
  const description = optional(row.description)
  const ref = optional(row.ref)
  return {
    id: String(row.id),
    paused: row.paused === 1,
    ...(description === undefined ? {} : { description }),
    ...(ref === undefined ? {} : { ref }),
    expression: String(row.expression),
  }
}

function toRule(row: Record<string, unknown>): StoredFirewallRule {
  const description = optional(row.description)
  const ref = optional(row.ref)
  const products = optional(row.products)
  return {
    id: String(row.id),
    filter_id: String(row.filter_id),
    action: String(row.action) as FirewallAction,
    priority: row.priority === null ? null : Number(row.priority),
    paused: row.paused === 1,
    ...(description === undefined ? {} : { description }),
    ...(ref === undefined ? {} : { ref }),
    ...(products === undefined ? {} : { products: JSON.parse(products) as FirewallProduct[] }),
    created_on: String(row.created_on),
    modified_on: String(row.modified_on),
  }
}

export class FirewallStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  filters(): Filter[] {
    return this.sql.exec('SELECT * FROM filters ORDER BY seq').toArray().map(toFilter)
  }

  filter(id: string): Filter | undefined {
    const row = this.sql.exec('SELECT * FROM filters WHERE id = ?', id).toArray()[0]
    return row === undefined ? undefined : toFilter(row)
  }

  filterWithExpression(expression: string): Filter | undefined {
    const row = this.sql.exec('SELECT * FROM filters WHERE expression = ?', expression).toArray()[0]
    return row === undefined ? undefined : toFilter(row)
  }

  /** Inserts `filter`, or replaces the one with its id (keeping its place). */
  putFilter(filter: Filter): void {
    this.sql.exec(
      `INSERT INTO filters VALUES (?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM filters))
         ON CONFLICT (id) DO UPDATE SET expression = excluded.expression,
           paused = excluded.paused, description = excluded.description, ref = excluded.ref`,
      filter.id,
      filter.expression,
      filter.paused ? 1 : 0,
      filter.description ?? null,
      filter.ref ?? null,
    )
  }

  deleteFilter(id: string): void {
    this.sql.exec('DELETE FROM filters WHERE id = ?', id)
  }

  rules(): StoredFirewallRule[] {
    return this.sql.exec('SELECT * FROM firewall_rules ORDER BY seq').toArray().map(toRule)
  }

  rule(id: string): StoredFirewallRule | undefined {
    const row = this.sql.exec('SELECT * FROM firewall_rules WHERE id = ?', id).toArray()[0]
    return row === undefined ? undefined : toRule(row)
  }

  /** The rules that use filter `id`. */
  rulesUsing(filterId: string): string[] {
    return this.sql
      .exec('SELECT id FROM firewall_rules WHERE filter_id = ? ORDER BY seq', filterId)
      .toArray()
      .map((row) => String(row.id))
  }

  ruleCount(): number {
    return Number(this.sql.exec('SELECT count(*) AS n FROM firewall_rules').one().n)
  }

  putRule(rule: StoredFirewallRule): void {
    this.sql.exec(
      `INSERT INTO firewall_rules VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?,
           (SELECT coalesce(max(seq), 0) + 1 FROM firewall_rules))
         ON CONFLICT (id) DO UPDATE SET filter_id = excluded.filter_id, action = excluded.action,
           priority = excluded.priority, paused = excluded.paused,
           description = excluded.description, ref = excluded.ref, products = excluded.products,
           modified_on = excluded.modified_on`,
      rule.id,
      rule.filter_id,
      rule.action,
      rule.priority,
      rule.paused ? 1 : 0,
      rule.description ?? null,
      rule.ref ?? null,
      rule.products === undefined ? null : JSON.stringify(rule.products),
      rule.created_on,
      rule.modified_on,
    )
  }

  deleteRule(id: string): void {
    this.sql.exec('DELETE FROM firewall_rules WHERE id = ?', id)
  }

  /** The zone's own rule quota, if one was set (otherwise its plan's). */
  ruleQuota(): number | undefined {
    const row = this.sql
      .exec("SELECT value FROM firewall_settings WHERE key = 'rule_quota'")
      .toArray()[0]
    return row === undefined ? undefined : Number(row.value)
  }

  setRuleQuota(quota: number | null): void {
    if (quota === null) this.sql.exec("DELETE FROM firewall_settings WHERE key = 'rule_quota'")
    else {
      this.sql.exec(
        `INSERT INTO firewall_settings VALUES ('rule_quota', ?)
           ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
        quota,
      )
    }
  }
}
