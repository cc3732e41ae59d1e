// A Terraform file of the vendor's provider read back into a bundle: what terraform.ts writes,
// in v5 (attributes) and v4 (nested blocks) syntax, and the provider 3.x `cloudflare_waf_*`
// resources of the previous product. Values must be literal: the only references resolved are
// those between the file's own resources that the export writes (`cloudflare_ruleset.X.id`,
// `cloudflare_filter.X.id`); anything else is refused with the file, line and attribute.
//
// A file names no zone and carries no times or version numbers, and some resources carry no id
// (a rule of a ruleset, v5's inline filter): ids come from the import blocks, then from the zone
// of that name where it exists (an entry point by phase, a custom ruleset by name, a rule by
// ref, a filter by expression), else new ones. What the file does not hold (the workbench's own
// settings, the previous product's `waf` setting, a migration, what v5's firewall rule holds
// read-only) is the existing zone's, or the defaults of a new one.

import {
  BUNDLE_FORMAT,
  BUNDLE_VERSION,
  type BundleFilter,
  type BundleFirewallRule,
  type BundlePageRule,
  type BundlePreviousWaf,
  type BundleRule,
  type BundleRuleset,
  type BundleWafOverride,
  type ZoneBundle,
} from '@shared/api/bundle'
import { badRequest, isVendorId } from '@shared/api/errors'
import type { ZonePlan } from '@shared/api/zones'
import { DEFAULT_EVENT_LIMITS } from '../zones/events'
import { newVendorId, vendorTimestamp } from '../zones/vendor-format'
import { HclSyntaxError, parseHcl, type HclBlock, type HclNode, type HclSpan } from './hcl-parse'
import { BUNDLE_ERRORS } from '@shared/api/error-codes'

export interface TerraformImportOptions {
  /** the file's name, for errors */
  fileName: string
  zoneName: string
  /** the plan of a zone the file creates */
  plan?: ZonePlan
  /** the zone of that name, when there is one */
  existing?: ZoneBundle
  now: number
}

type Json = string | number | boolean | null | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

/** Top-level blocks that describe nothing of the zone. */
const IGNORED_BLOCKS = new Set(['terraform', 'provider', 'variable', 'output', 'locals'])

const RESOURCE_TYPES = new Set([
  'cloudflare_ruleset',
  'cloudflare_filter',
  'cloudflare_firewall_rule',
  'cloudflare_page_rule',
  'cloudflare_waf_package',
  'cloudflare_waf_group',
  'cloudflare_waf_rule',
  'cloudflare_waf_override',
])

/**
 * v4's nested blocks that stand for lists even when there is one: the ruleset's rules and an
 * override's categories and rules (the only lists of objects in a rule, src-shared/api/rulesets.ts).
 */
const LIST_BLOCKS = new Set(['rules', 'categories'])

const isObject = (value: Json | undefined): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

/** The last `/`-separated part of an import block's id, when it is an id. */
const importedId = (id: string): string | undefined => {
  const last = id.split('/').at(-1) ?? ''
  return isVendorId(last) ? last : undefined
}

class TerraformReader {
  /** `type.name` → the resource's id, for import blocks and references */
  private readonly ids = new Map<string, string>()
  private readonly resources: HclBlock[] = []
  private readonly time: string

  constructor(
    text: string,
    private readonly options: TerraformImportOptions,
  ) {
    this.time = vendorTimestamp(options.now)
    let body
    try {
      body = parseHcl(text)
    } catch (error) {
      if (!(error instanceof HclSyntaxError)) throw error
      throw this.refusal(error.span, undefined, error.reason)
    }
    for (const block of body.blocks) {
      if (IGNORED_BLOCKS.has(block.type)) continue
      if (block.type === 'resource' && RESOURCE_TYPES.has(block.labels[0] ?? '')) {
        this.resources.push(block)
      } else if (block.type === 'import') {
        const to = block.body.attributes.find((entry) => entry.key === 'to')
        const id = this.attribute(block, 'id', 'import')
        if (to?.value.kind !== 'reference') {
          throw this.refusal(to ?? block, 'import.to', 'must name a resource')
        }
        const found = typeof id === 'string' ? importedId(id) : undefined
        if (found !== undefined) this.ids.set(to.value.path, found)
      } else {
        const what =
          block.type === 'resource' ? `a ${block.labels[0] ?? ''}` : `a ${block.type} block`
        throw this.refusal(
          block,
          undefined,
          `${what} is not part of a zone's security configuration (the file may hold ${[...RESOURCE_TYPES].join(', ')})`,
        )
      }
    }
  }

  private get existing() {
    return this.options.existing
  }

  private refusal(span: HclSpan, attribute: string | undefined, reason: string) {
    const { fileName } = this.options
    return badRequest(
      BUNDLE_ERRORS.terraform,
      `${fileName}, line ${span.line}${attribute === undefined ? '' : `, ${attribute}`}: ${reason}`,
      {
        meta: {
          file: fileName,
          line: span.line,
          ...(attribute === undefined ? {} : { attribute }),
        },
      },
    )
  }

  private of(type: string): HclBlock[] {
    return this.resources.filter((block) => block.labels[0] === type)
  }

  private address(block: HclBlock): string {
    return `${block.labels[0]}.${block.labels[1]}`
  }

  /** The value of `node`, literal or a reference to a resource of the file; `where` names it. */
  private value(node: HclNode, where: string): Json {
    switch (node.kind) {
      case 'literal':
        return node.value
      case 'list':
        return node.items.map((item, index) => this.value(item, `${where}[${index}]`))
      case 'object':
        return Object.fromEntries(
          node.entries.map((entry) => [
            entry.key,
            this.value(entry.value, `${where}.${entry.key}`),
          ]),
        )
      case 'reference': {
        const match = /^(cloudflare_ruleset|cloudflare_filter)\.([A-Za-z0-9_-]+)\.id$/.exec(
          node.path,
        )
        const id = match === null ? undefined : this.ids.get(`${match[1]}.${match[2]}`)
        if (id !== undefined) return id
        throw this.refusal(
          node,
          where,
          `${node.path} cannot be resolved: the file's values must be literal (a reference only to the id of a cloudflare_ruleset or cloudflare_filter of the same file)`,
        )
      }
      case 'call':
        throw this.refusal(
          node,
          where,
          `the function call ${node.name}(…) is not a literal value: write its result`,
        )
      case 'template':
        return this.value(node.inner, where)
    }
  }

  /** A block's body as values: attributes, then nested blocks (v4), each a list or an object. */
  private bodyValue(block: HclBlock, where: string): JsonObject {
    const value: JsonObject = {}
    for (const entry of block.body.attributes) {
      value[entry.key] = this.value(entry.value, `${where}.${entry.key}`)
    }
    const nested = new Map<string, HclBlock[]>()
    for (const inner of block.body.blocks) {
      const same = nested.get(inner.type)
      if (same === undefined) nested.set(inner.type, [inner])
      else same.push(inner)
    }
    for (const [type, blocks] of nested) {
      const values = blocks.map((inner, index) =>
        this.bodyValue(
          inner,
          blocks.length > 1 ? `${where}.${type}[${index}]` : `${where}.${type}`,
        ),
      )
      value[type] = blocks.length > 1 || LIST_BLOCKS.has(type) ? values : values[0]!
    }
    return value
  }

  private attribute(block: HclBlock, key: string, where: string): Json | undefined {
    const entry = block.body.attributes.find((attribute) => attribute.key === key)
    return entry === undefined ? undefined : this.value(entry.value, `${where}.${key}`)
  }

  /** A required string attribute of a resource, or its refusal. */
  private text(block: HclBlock, body: JsonObject, key: string): string {
    const value = body[key]
    if (typeof value !== 'string') {
      throw this.refusal(block, `${this.address(block)}.${key}`, 'a string is required')
    }
    return value
  }

  bundle(): ZoneBundle {
    const { existing } = this
    // First the ids, so that references resolve whatever the order of the resources.
    for (const block of this.of('cloudflare_ruleset')) this.rulesetId(block)
    for (const block of this.of('cloudflare_filter')) {
      if (!this.ids.has(this.address(block))) this.ids.set(this.address(block), newVendorId())
    }
    const zoneIds = this.resources
      .map((block) => this.attribute(block, 'zone_id', this.address(block)))
      .filter((id): id is string => typeof id === 'string' && isVendorId(id))
    const previous = this.previousWaf()
    const plan = this.options.plan ?? existing?.zone.plan ?? 'free'
    const rulesets = this.of('cloudflare_ruleset').map((block) => this.ruleset(block))
    const { filters, rules } = this.firewall()
    return {
      format: BUNDLE_FORMAT,
      version: BUNDLE_VERSION,
      exported_at: new Date(this.options.now).toISOString(),
      zone: {
        id: existing?.zone.id ?? zoneIds[0] ?? newVendorId(),
        name: this.options.zoneName,
        type: existing?.zone.type ?? 'full',
        plan,
        paused: existing?.zone.paused ?? false,
        waf_product:
          existing?.zone.waf_product ?? (previous === undefined ? 'managed_rulesets' : 'previous'),
        created_on: existing?.zone.created_on ?? this.time,
        modified_on: existing?.zone.modified_on ?? this.time,
      },
      rulesets,
      filters,
      firewall_rules: rules,
      firewall_settings: existing?.firewall_settings ?? { rule_quota: null },
      page_rules: this.of('cloudflare_page_rule').map((block) => this.pageRule(block)),
      event_log_settings: existing?.event_log_settings ?? {
        max_events: DEFAULT_EVENT_LIMITS.max_events,
        max_bytes: DEFAULT_EVENT_LIMITS.max_bytes,
      },
      ...(previous === undefined ? {} : { previous_waf: previous }),
      ...(existing?.waf_migration === undefined ? {} : { waf_migration: existing.waf_migration }),
    }
  }

  /** A ruleset's id: its import block's, the existing zone's ruleset of its phase or name, or new. */
  private rulesetId(block: HclBlock): void {
    const address = this.address(block)
    if (this.ids.has(address)) return
    const kind = this.attribute(block, 'kind', address)
    const phase = this.attribute(block, 'phase', address)
    const name = this.attribute(block, 'name', address)
    const same = this.existing?.rulesets.find(
      (ruleset) =>
        ruleset.kind === kind &&
        ruleset.phase === phase &&
        (kind === 'zone' || ruleset.name === name),
    )
    this.ids.set(address, same?.id ?? newVendorId())
  }

  private ruleset(block: HclBlock): BundleRuleset {
    const address = this.address(block)
    const body = this.bodyValue(block, address)
    const id = this.ids.get(address)!
    const before = this.existing?.rulesets.find((ruleset) => ruleset.id === id)
    const rules = Array.isArray(body.rules) ? body.rules : []
    const byRef = new Map(before?.rules.map((rule) => [rule.ref, rule]))
    return {
      id,
      name: this.text(block, body, 'name'),
      description: typeof body.description === 'string' ? body.description : '',
      kind: this.text(block, body, 'kind') as BundleRuleset['kind'],
      version: before?.version ?? '1',
      rules: rules.map((rule, index) =>
        this.rule(block, isObject(rule) ? rule : {}, before, byRef, `${address}.rules[${index}]`),
      ),
      last_updated: before?.last_updated ?? this.time,
      phase: this.text(block, body, 'phase') as BundleRuleset['phase'],
      // The API's own record of what made the ruleset; a file does not say.
      ...(before?.source === undefined ? {} : { source: before.source }),
    }
  }

  private rule(
    block: HclBlock,
    fields: JsonObject,
    ruleset: BundleRuleset | undefined,
    byRef: ReadonlyMap<string, BundleRule>,
    where: string,
  ): BundleRule {
    const { ref, description, expression, action, action_parameters: parameters, ...rest } = fields
    if (typeof action !== 'string' || typeof expression !== 'string') {
      throw this.refusal(block, where, 'a rule needs its action and expression as strings')
    }
    const same = typeof ref === 'string' ? byRef.get(ref) : undefined
    const id = same?.id ?? newVendorId()
    return {
      ...(rest as Partial<BundleRule>),
      id,
      version: same?.version ?? ruleset?.version ?? '1',
      action,
      expression,
      description: typeof description === 'string' ? description : '',
      last_updated: same?.last_updated ?? this.time,
      ref: typeof ref === 'string' ? ref : id,
      enabled: typeof fields.enabled === 'boolean' ? fields.enabled : true,
      ...(isObject(parameters) ? { action_parameters: skipRules(action, parameters) } : {}),
    }
  }

  private firewall(): { filters: BundleFilter[]; rules: BundleFirewallRule[] } {
    const filters: BundleFilter[] = []
    const rules: BundleFirewallRule[] = []
    const filterByExpression = new Map(
      this.existing?.filters.map((filter) => [filter.expression, filter.id]),
    )
    const ruleById = new Map(this.existing?.firewall_rules.map((rule) => [rule.id, rule]))
    for (const block of this.of('cloudflare_filter')) {
      const address = this.address(block)
      const body = this.bodyValue(block, address)
      // v5 puts the filter's fields in a list of one object, `body`; v4 at the top.
      const fields = Array.isArray(body.body) && isObject(body.body[0]) ? body.body[0] : body
      filters.push(this.filter(block, this.ids.get(address)!, fields))
    }
    for (const block of this.of('cloudflare_firewall_rule')) {
      const address = this.address(block)
      const body = this.bodyValue(block, address)
      const id = this.ids.get(address) ?? newVendorId()
      const before = ruleById.get(id)
      const times = {
        created_on: before?.created_on ?? this.time,
        modified_on: before?.modified_on ?? this.time,
      }
      if (isObject(body.action) && isObject(body.filter)) {
        // v5: an action mode and an inline filter; the rest is read-only there, so it stays.
        const expression = this.text(block, body.filter, 'expression')
        const filterId = before?.filter.id ?? filterByExpression.get(expression) ?? newVendorId()
        filters.push(this.filter(block, filterId, body.filter))
        rules.push({
          id,
          paused: before?.paused ?? false,
          ...(before?.description === undefined ? {} : { description: before.description }),
          action: this.text(block, body.action, 'mode') as BundleFirewallRule['action'],
          priority: before?.priority ?? null,
          filter: { id: filterId },
          ...(before?.ref === undefined ? {} : { ref: before.ref }),
          ...(before?.products === undefined ? {} : { products: before.products }),
          ...times,
        })
        continue
      }
      const filterId = this.text(block, body, 'filter_id')
      rules.push({
        id,
        paused: body.paused === true,
        ...(typeof body.description === 'string' ? { description: body.description } : {}),
        action: this.text(block, body, 'action') as BundleFirewallRule['action'],
        priority: typeof body.priority === 'number' ? body.priority : null,
        filter: { id: filterId },
        ...(typeof body.ref === 'string' ? { ref: body.ref } : {}),
        ...(Array.isArray(body.products)
          ? { products: body.products as BundleFirewallRule['products'] }
          : {}),
        ...times,
      })
    }
    return { filters, rules }
  }

  private filter(block: HclBlock, id: string, fields: JsonObject): BundleFilter {
    return {
      id,
      paused: fields.paused === true,
      ...(typeof fields.description === 'string' ? { description: fields.description } : {}),
      ...(typeof fields.ref === 'string' ? { ref: fields.ref } : {}),
      expression: this.text(block, fields, 'expression'),
    }
  }

  /** A page rule: its target as the API's one target, its object of actions as a list by id. */
  private pageRule(block: HclBlock): BundlePageRule {
    const address = this.address(block)
    const body = this.bodyValue(block, address)
    const id = this.ids.get(address) ?? newVendorId()
    const before = this.existing?.page_rules.find((rule) => rule.id === id)
    const actions = isObject(body.actions) ? body.actions : {}
    return {
      id,
      targets: [
        {
          target: 'url',
          constraint: { operator: 'matches', value: this.text(block, body, 'target') },
        },
      ],
      actions: Object.entries(actions).map(([action, value]) =>
        value === true ? { id: action } : { id: action, value },
      ),
      priority: typeof body.priority === 'number' ? body.priority : 1,
      status: body.status === 'disabled' ? 'disabled' : 'active',
      created_on: before?.created_on ?? this.time,
      modified_on: before?.modified_on ?? this.time,
    }
  }

  /** Provider 3.x's previous product, when the file has any of it; else the existing zone's. */
  private previousWaf(): BundlePreviousWaf | undefined {
    const read = (kind: string) =>
      this.of(`cloudflare_waf_${kind}`).map((block) => ({
        block,
        body: this.bodyValue(block, this.address(block)),
      }))
    const packages = read('package')
    const groups = read('group')
    const rules = read('rule')
    const overrides = read('override')
    const before = this.existing?.previous_waf
    if ([packages, groups, rules, overrides].every((list) => list.length === 0)) return before
    const catalogRef = (
      { block, body }: ReturnType<typeof read>[number],
      kind: 'group' | 'rule',
    ) => ({
      id: this.text(block, body, `${kind}_id`),
      package_id: this.text(block, body, 'package_id'),
      mode: this.text(block, body, 'mode'),
    })
    return {
      setting: before?.setting ?? { id: 'waf', value: 'on', modified_on: null },
      packages: packages.map(({ block, body }) => {
        const id = this.text(block, body, 'package_id')
        return {
          ...before?.packages.find((pkg) => pkg.id === id),
          id,
          ...(typeof body.sensitivity === 'string' ? { sensitivity: body.sensitivity } : {}),
          ...(typeof body.action_mode === 'string' ? { action_mode: body.action_mode } : {}),
        } as BundlePreviousWaf['packages'][number]
      }),
      groups: groups.map((group) => catalogRef(group, 'group')) as BundlePreviousWaf['groups'],
      rules: rules.map((rule) => catalogRef(rule, 'rule')) as BundlePreviousWaf['rules'],
      overrides: overrides.map(({ block, body }): BundleWafOverride => {
        const { zone_id: _zone, description, priority, paused, ...fields } = body
        return {
          ...(fields as Omit<BundleWafOverride, 'id'>),
          id: this.ids.get(this.address(block)) ?? newVendorId(),
          description: typeof description === 'string' ? description : null,
          ...(typeof priority === 'number' ? { priority } : {}),
          paused: paused === true,
        }
      }),
    }
  }
}

/** v4 writes a skip rule's map of ruleset ids to rule ids with comma-separated strings. */
function skipRules(action: string, parameters: JsonObject): JsonObject {
  const { rules } = parameters
  if (action !== 'skip' || !isObject(rules)) return parameters
  return {
    ...parameters,
    rules: Object.fromEntries(
      Object.entries(rules).map(([ruleset, ids]) => [
        ruleset,
        typeof ids === 'string' ? ids.split(',') : ids,
      ]),
    ),
  }
}

/** The bundle the Terraform file `text` describes for the zone `options.zoneName`, or a 400. */
export function terraformBundle(text: string, options: TerraformImportOptions): ZoneBundle {
  return new TerraformReader(text, options).bundle()
}
