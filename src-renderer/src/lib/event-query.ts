// The query string of the events route for the Security events screen's filters.

export interface EventFilter {
  /** milliseconds since the epoch, or null for no lower bound */
  since: number | null
  limit: number
  action: string
  ruleId: string
  host: string
  /** a substring of the path */
  path: string
}

export function eventQuery(filter: EventFilter): string {
  const query = new URLSearchParams({ limit: String(filter.limit) })
  if (filter.since !== null) query.set('since', new Date(filter.since).toISOString())
  if (filter.action !== '') query.set('action', filter.action)
  if (filter.ruleId.trim() !== '') query.set('rule_id', filter.ruleId.trim())
  if (filter.host.trim() !== '') query.set('host', filter.host.trim())
  if (filter.path !== '') query.set('path', filter.path)
  return query.toString()
}
