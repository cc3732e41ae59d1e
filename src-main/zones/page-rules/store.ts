// Where a zone keeps its page rules: one row each, in the order they were created (the order the
// vendor lists them in before sorting, and the tie-break of equal priorities).

import type { PageRule } from '@shared/api/waf'
import type { ObjectContext } from '../../objects'

export const PAGE_RULES_SCHEMA: readonly string[] = [
  `CREATE TABLE page_rules (
     id TEXT PRIMARY KEY, targets TEXT NOT NULL, actions TEXT NOT NULL, priority INTEGER NOT NULL,
     status TEXT NOT NULL, created_on TEXT NOT NULL, modified_on TEXT NOT NULL,
     seq INTEGER NOT NULL)`,
]

export class PageRuleStore {
  constructor(private readonly ctx: ObjectContext) {}

  private get sql() {
    return this.ctx.storage.sql
  }

  /** In creation order. */
  list(): PageRule[] {
    return this.sql
      .exec('SELECT * FROM page_rules ORDER BY seq')
      .toArray()
      .map((row) => ({
        id: String(row.id),
        targets: JSON.parse(String(row.targets)) as PageRule['targets'],
        actions: JSON.parse(String(row.actions)) as PageRule['actions'],
        priority: Number(row.priority),
        status: row.status as PageRule['status'],
        created_on: String(row.created_on),
        modified_on: String(row.modified_on),
      }))
  }

  rule(id: string): PageRule | undefined {
    return this.list().find((r) => r.id === id)
  }

  count(): number {
    return Number(this.sql.exec('SELECT count(*) AS n FROM page_rules').one().n)
  }

  /** Writes `rule`, a new one after the others, an existing one in its place. */
  put(rule: PageRule): void {
    const seq =
      this.sql.exec('SELECT seq FROM page_rules WHERE id = ?', rule.id).toArray()[0]?.seq ??
      Number(this.sql.exec('SELECT coalesce(max(seq), 0) + 1 AS n FROM page_rules').one().n)
    this.sql.exec(
      `INSERT INTO page_rules VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET targets = excluded.targets, actions = excluded.actions,
         priority = excluded.priority, status = excluded.status, modified_on = excluded.modified_on`,
      rule.id,
      JSON.stringify(rule.targets),
      JSON.stringify(rule.actions),
      rule.priority,
      rule.status,
      rule.created_on,
      rule.modified_on,
      seq,
    )
  }

  delete(id: string): void {
    this.sql.exec('DELETE FROM page_rules WHERE id = ?', id)
  }
}
