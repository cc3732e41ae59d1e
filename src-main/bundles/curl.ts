// A bundle as a bash script that makes a zone's configuration through the vendor's API (its
// rulesets, filters, firewall rules, page rules and previous-WAF settings), with nothing but
// bash, curl and jq. It is idempotent: each resource is looked up first (by id, then by what
// names it) and written only where it differs, so a second run makes no call that writes. It creates and updates, never deletes,
// and stops at the first refusal with the API's own errors. The zone's saved sample requests are
// the workbench's own, with no counterpart in the vendor's API: the script leaves them out.

import type {
  BundleFilter,
  BundleFirewallRule,
  BundlePreviousWaf,
  BundleRuleset,
  ZoneBundle,
} from '@shared/api/bundle'
import { describeTarget, withOperators } from '@shared/api/waf'

const DEFAULT_BASE_URL = 'https://api.cloudflare.com/client/v4'

/** `text` as one word for bash. */
const word = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`

/** A JSON document as a quoted here-document on jq's input: no expansion happens in it. */
const document = (value: unknown) =>
  `<<'ZONE_WORKBENCH_JSON'\n${JSON.stringify(value)}\nZONE_WORKBENCH_JSON`

const PRELUDE = `set -euo pipefail

BASE_URL="\${CLOUDFLARE_BASE_URL:-${DEFAULT_BASE_URL}}"
: "\${CLOUDFLARE_API_TOKEN:?set CLOUDFLARE_API_TOKEN to an API token that can edit the zone}"
ZONE="\${CLOUDFLARE_ZONE_ID:?set CLOUDFLARE_ZONE_ID to the id of the zone to configure}"
command -v jq >/dev/null || { echo "this script needs jq" >&2; exit 1; }

# call METHOD PATH [BODY]: prints the answer's result; a refusal stops the script with the API's errors.
call() {
  local answer data=()
  if [ $# -ge 3 ]; then data=(--data-binary @-); fi
  answer=$(printf '%s' "\${3:-}" | curl -sS -X "$1" "$BASE_URL$2" "\${data[@]}" \\
    -H "Authorization: Bearer $CLOUDFLARE_API_TOKEN" -H 'Content-Type: application/json') ||
    { echo "$1 $2: no answer from $BASE_URL" >&2; exit 1; }
  if ! jq -e '.success == true' >/dev/null 2>&1 <<<"$answer"; then
    echo "$1 $2 failed: $(jq -r '[.errors[]? | "\\(.code): \\(.message)"] | join("; ")' <<<"$answer" 2>/dev/null || printf '%s' "$answer")" >&2
    exit 1
  fi
  jq -c '.result' <<<"$answer"
}

# list PATH: every item of a paged list.
list() {
  local page=1 items='[]' result
  while :; do
    result=$(call GET "$1?per_page=100&page=$page")
    items=$(jq -c --argjson more "$result" '. + $more' <<<"$items")
    [ "$(jq length <<<"$result")" -eq 100 ] || break
    page=$((page + 1))
  done
  printf '%s\\n' "$items"
}

# same VIEW A B: whether A and B look the same through the jq filter VIEW.
same() {
  [ "$(jq -cS "$1" <<<"$2")" = "$(jq -cS "$1" <<<"$3")" ]
}

# match LIST TAKEN KEYS: the id of the first item of LIST, not among the ids TAKEN, that agrees
# with KEYS ({"id": …, then fields that name it, in order}) on its id or on one named field.
match() {
  jq -r --argjson taken "$2" --argjson keys "$3" '
    [.[] | select(.id as $id | $taken | index($id) | not)] as $free
    | first($keys | to_entries[] | select(.value != null and .value != "") as $key
        | $free[] | select(.[$key.key] == $key.value)) | .id // empty' <<<"$1"
}

RULESET_VIEW='{description: (.description // ""), rules: [(.rules // [])[] | del(.id, .version, .last_updated)]}'
FILTER_VIEW='{expression, paused, description: (.description // ""), ref: (.ref // "")}'
OVERRIDE_VIEW='{urls, rules: (.rules // {}), groups: (.groups // {}), rewrite_action: (.rewrite_action // {}), priority, description, paused}'
PAGE_RULE_VIEW='{targets, actions, priority, status}'
RULE_VIEW='{action, paused, filter: .filter.id, priority: (.priority // null), description: (.description // ""), ref: (.ref // ""), products: (.products // [])}'
`

/** A rule as the script sends it: without what the API sets (its id, version and time). */
const ruleBody = ({
  id: _id,
  version: _version,
  last_updated: _time,
  ...rule
}: BundleRuleset['rules'][number]) => rule

class ScriptWriter {
  private readonly lines: string[] = []
  /** custom ruleset id → the shell variable that holds its id in the zone configured */
  private readonly rulesetVariables = new Map<string, string>()

  constructor(private readonly bundle: ZoneBundle) {}

  write(): string {
    const { name, id } = this.bundle.zone
    this.lines.push(
      '#!/usr/bin/env bash',
      `# Zone ${name} (${id}) as exported by Zone Workbench: its rulesets, filters, firewall rules,`,
      "# page rules and previous-WAF settings, made through the vendor's API in the zone",
      '# CLOUDFLARE_ZONE_ID. Each resource is looked up first and written only where it differs,',
      '# so running it again changes nothing; it creates and updates, and deletes nothing. It',
      '# needs bash, curl and jq.',
      `#   CLOUDFLARE_BASE_URL   the API (default ${DEFAULT_BASE_URL})`,
      '#   CLOUDFLARE_API_TOKEN  an API token that can edit the zone',
      '#   CLOUDFLARE_ZONE_ID    the zone to configure',
      PRELUDE,
    )
    // The previous product first: a migration that the entry points begin starts from it. Once
    // a zone has migrated, that product's API answers 10400: nothing of it to make.
    const { previous_waf: waf, waf_migration: migration } = this.bundle
    if (waf !== undefined && migration?.migration_state !== 'completed') this.previousWaf(waf)
    const custom = this.bundle.rulesets.filter((ruleset) => ruleset.kind === 'custom')
    const entryPoints = this.bundle.rulesets.filter((ruleset) => ruleset.kind === 'zone')
    if (this.bundle.rulesets.length > 0) {
      this.lines.push('RULESETS=$(call GET "/zones/$ZONE/rulesets")')
    }
    custom.forEach((ruleset, index) => this.customRuleset(ruleset, index + 1))
    for (const ruleset of entryPoints) this.entryPoint(ruleset)
    this.filters(this.bundle.filters)
    this.firewallRules(this.bundle.firewall_rules)
    this.pageRules()
    this.lines.push('echo "Zone $ZONE configured."')
    return `${this.lines.join('\n')}\n`
  }

  /**
   * The ruleset's body on stdout of a jq program that puts, in each execute rule naming a
   * custom ruleset of the bundle, that ruleset's id in the zone configured.
   */
  private rulesetBody(ruleset: BundleRuleset, fields: Record<string, unknown>): string {
    const args: string[] = []
    const assignments: string[] = []
    ruleset.rules.forEach((rule, index) => {
      const executed = (rule.action_parameters as { id?: unknown } | undefined)?.id
      const variable =
        typeof executed === 'string' ? this.rulesetVariables.get(executed) : undefined
      if (variable === undefined) return
      args.push(`--arg ${variable} "$${variable}"`)
      assignments.push(`.rules[${index}].action_parameters.id = $${variable}`)
    })
    const program = assignments.length === 0 ? '.' : assignments.join(' | ')
    const body = { ...fields, rules: ruleset.rules.map(ruleBody) }
    return `jq -c ${[...args, word(program)].join(' ')} ${document(body)}`
  }

  private customRuleset(ruleset: BundleRuleset, number: number): void {
    const variable = `RULESET_${number}`
    this.rulesetVariables.set(ruleset.id, variable)
    const { name, kind, phase, description } = ruleset
    const select = `first((.[] | select(.id == ${JSON.stringify(ruleset.id)})), (.[] | select(.kind == "custom" and .name == ${JSON.stringify(name)} and .phase == ${JSON.stringify(phase)}))) | .id // empty`
    this.lines.push(
      '',
      `# Custom ruleset ${JSON.stringify(name)}`,
      `BODY=$(${this.rulesetBody(ruleset, { name, kind, phase, description })}\n)`,
      `${variable}=$(jq -r ${word(select)} <<<"$RULESETS")`,
      `if [ -z "$${variable}" ]; then`,
      `  ${variable}=$(call POST "/zones/$ZONE/rulesets" "$BODY" | jq -r .id)`,
      'else',
      `  CURRENT=$(call GET "/zones/$ZONE/rulesets/$${variable}")`,
      `  same "$RULESET_VIEW" "$CURRENT" "$BODY" || call PUT "/zones/$ZONE/rulesets/$${variable}" "$BODY" >/dev/null`,
      'fi',
    )
  }

  private entryPoint(ruleset: BundleRuleset): void {
    const { name, kind, phase, description } = ruleset
    const select = `first(.[] | select(.kind == "zone" and .phase == ${JSON.stringify(phase)})) | .id // empty`
    // A zone migrating off the previous product deploys its managed rulesets by the migration's
    // PUT (any other is refused with 20132), which begins the same migration in the zone made.
    const state = this.bundle.waf_migration?.migration_state
    const migrating =
      phase === 'http_request_firewall_managed' && (state === 'validation' || state === 'pending')
    const path = `/zones/$ZONE/rulesets/phases/${phase}/entrypoint${migrating ? `?waf_migration=${state}&phase_two=1` : ''}`
    this.lines.push(
      '',
      `# The ${phase} entry point`,
      `BODY=$(${this.rulesetBody(ruleset, { name, kind, phase, description })}\n)`,
      `ID=$(jq -r ${word(select)} <<<"$RULESETS")`,
      "CURRENT='{}'",
      'if [ -n "$ID" ]; then CURRENT=$(call GET "/zones/$ZONE/rulesets/$ID"); fi',
      `same "$RULESET_VIEW" "$CURRENT" "$BODY" || call PUT "${path}" "$BODY" >/dev/null`,
    )
  }

  /**
   * One resource of a list: found in LIST by id or by `keys` (in order), among those no earlier
   * resource took; updated where it differs, else created. Its id in the zone goes to `into`.
   */
  private upsert(options: {
    label: string
    list: string
    /** a shell word: the JSON object of the fields that name it, in the order they are tried */
    keys: string
    body: string
    view: string
    path: string
    into: string
    /** a line run before it is looked up */
    prepare?: string
    /** the collection takes one resource per POST, not a list of them */
    createsOne?: boolean
  }): void {
    const { label, list, keys, body, view, path, into, prepare, createsOne } = options
    const create = createsOne
      ? `call POST "${path}" "$BODY" | jq -r .id`
      : `call POST "${path}" "[$BODY]" | jq -r '.[0].id'`
    this.lines.push(
      '',
      `# ${label}`,
      ...(prepare === undefined ? [] : [prepare]),
      `BODY=$(${body}\n)`,
      `ID=$(match "$${list}" "$TAKEN" ${keys})`,
      'if [ -z "$ID" ]; then',
      `  ID=$(${create})`,
      `elif ! same "$${view}" "$(jq -c --arg id "$ID" 'first(.[] | select(.id == $id))' <<<"$${list}")" "$BODY"; then`,
      `  call PUT "${path}/$ID" "$(jq -c --arg id "$ID" '. + {id: $id}' <<<"$BODY")" >/dev/null`,
      'fi',
      `TAKEN=$(jq -c --arg id "$ID" '. + [$id]' <<<"$TAKEN")`,
      ...(into === '' ? [] : [into]),
    )
  }

  private filters(filters: BundleFilter[]): void {
    if (filters.length === 0 && this.bundle.firewall_rules.length === 0) return
    this.lines.push(
      '',
      'declare -A FILTER_IDS',
      'FILTERS=$(list "/zones/$ZONE/filters")',
      "TAKEN='[]'",
    )
    for (const filter of filters) {
      const { id, expression, paused, description, ref } = filter
      this.upsert({
        label: `Filter ${JSON.stringify(description || ref || expression)}`,
        list: 'FILTERS',
        keys: word(JSON.stringify({ id, ref, description, expression })),
        body: `jq -c . ${document({ expression, paused, ...(description ? { description } : {}), ...(ref ? { ref } : {}) })}`,
        view: 'FILTER_VIEW',
        path: '/zones/$ZONE/filters',
        into: `FILTER_IDS[${id}]=$ID`,
      })
    }
  }

  private firewallRules(rules: BundleFirewallRule[]): void {
    if (rules.length === 0) return
    this.lines.push(
      '',
      `FIREWALL_RULES=$(list "/zones/$ZONE/firewall/rules" | jq -c 'map(. + {filter_id: .filter.id})')`,
      "TAKEN='[]'",
    )
    for (const rule of rules) {
      const { id, filter, action, priority, paused, description, ref, products } = rule
      const body = {
        action,
        paused,
        ...(priority === null ? {} : { priority }),
        ...(description ? { description } : {}),
        ...(ref ? { ref } : {}),
        ...(products?.length ? { products } : {}),
      }
      this.upsert({
        label: `Firewall rule ${JSON.stringify(description || ref || id)}`,
        list: 'FIREWALL_RULES',
        // A rule named by nothing else is the one that uses its filter.
        keys: `"$(jq -cn --arg filter "$FILTER" ${word(`${JSON.stringify({ id, ref, description })} + {filter_id: $filter}`)})"`,
        body: `jq -c --arg filter "$FILTER" '. + {filter: {id: $filter}}' ${document(body)}`,
        view: 'RULE_VIEW',
        path: '/zones/$ZONE/firewall/rules',
        into: '',
        prepare: `FILTER=\${FILTER_IDS[${filter.id}]}`,
      })
    }
  }

  /** PATCH `path` with `body` where what it holds differs. */
  private patch(label: string, path: string, fields: Record<string, unknown>): void {
    const body = Object.fromEntries(
      Object.entries(fields).filter(([, value]) => value !== undefined),
    )
    const view = `{${Object.keys(body).join(', ')}}`
    this.lines.push(
      '',
      `# ${label}`,
      `BODY=$(jq -c . ${document(body)}\n)`,
      `CURRENT=$(call GET "${path}")`,
      `same ${word(view)} "$CURRENT" "$BODY" || call PATCH "${path}" "$BODY" >/dev/null`,
    )
  }

  /** The previous product: its setting, packages, the modes that differ, overrides, page rules. */
  private previousWaf(waf: BundlePreviousWaf): void {
    const packages = '/zones/$ZONE/firewall/waf/packages'
    this.patch('The previous WAF, on or off', '/zones/$ZONE/settings/waf', {
      value: waf.setting.value,
    })
    for (const { id, name, sensitivity, action_mode } of waf.packages) {
      if (sensitivity === undefined && action_mode === undefined) continue
      this.patch(`Package ${name ?? id}`, `${packages}/${id}`, { sensitivity, action_mode })
    }
    for (const { id, package_id, mode } of waf.groups) {
      this.patch(`Group ${id}`, `${packages}/${package_id}/groups/${id}`, { mode })
    }
    for (const { id, package_id, mode } of waf.rules) {
      this.patch(`Rule ${id}`, `${packages}/${package_id}/rules/${id}`, { mode })
    }
    if (waf.overrides.length > 0) {
      this.lines.push('', 'OVERRIDES=$(list "/zones/$ZONE/firewall/waf/overrides")', "TAKEN='[]'")
    }
    for (const { id, ...override } of waf.overrides) {
      this.upsert({
        label: `URI override ${JSON.stringify(override.description ?? override.urls.join(' '))}`,
        list: 'OVERRIDES',
        keys: word(JSON.stringify({ id, urls: override.urls })),
        body: `jq -c . ${document(override)}`,
        view: 'OVERRIDE_VIEW',
        path: '/zones/$ZONE/firewall/waf/overrides',
        into: '',
        createsOne: true,
      })
    }
  }

  /** Page rules, each found by id or by its targets. */
  private pageRules(): void {
    const pageRules = this.bundle.page_rules
    if (pageRules.length > 0) {
      this.lines.push('', 'PAGE_RULES=$(call GET "/zones/$ZONE/pagerules")', "TAKEN='[]'")
    }
    for (const { id, targets, actions, priority, status } of pageRules) {
      this.upsert({
        label: `Page rule ${withOperators(targets).map(describeTarget).join(' ')}`,
        list: 'PAGE_RULES',
        keys: word(JSON.stringify({ id, targets })),
        body: `jq -c . ${document({ targets, actions, priority, status })}`,
        view: 'PAGE_RULE_VIEW',
        path: '/zones/$ZONE/pagerules',
        into: '',
        createsOne: true,
      })
    }
  }
}

/** The bash script that makes the bundle's configuration in a zone. */
export function curlScript(bundle: ZoneBundle): string {
  return new ScriptWriter(bundle).write()
}
