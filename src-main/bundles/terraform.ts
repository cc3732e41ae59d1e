// A bundle as a Terraform file for the vendor's provider: `cloudflare_ruleset` for the zone's
// entry points and custom rulesets, `cloudflare_filter`, `cloudflare_firewall_rule` and
// `cloudflare_page_rule`, and for a zone still on the previous product (provider 3.x) its
// `cloudflare_waf_*` settings. Each resource comes with an import block naming the zone's
// existing resource, so that applying the file to the production zone adopts what is there
// rather than creating it again (a second entry point is refused with 20217). Schemas:
// https://registry.terraform.io/providers/cloudflare/cloudflare/latest/docs (v5), and the
// provider's docs at its tags v4.52.8 and v3.35.0 for the older ones. The zone's saved sample
// requests are the workbench's own, with no resource in the provider: the file leaves them out.

import type {
  BundleFilter,
  BundleFirewallRule,
  BundlePageRule,
  BundleRule,
  BundleRuleset,
  ZoneBundle,
} from '@shared/api/bundle'
import { badRequest } from '@shared/api/errors'
import {
  attribute,
  block,
  comment,
  hclFile,
  isHclObject,
  HclExpression,
  HclMap,
  type HclBodyItem,
  type HclValue,
} from './hcl'
import { BUNDLE_ERRORS } from '@shared/api/error-codes'
import { describeTarget, withOperators } from '@shared/api/waf'

export const TERRAFORM_PROVIDERS = ['v5', 'v4', 'v3'] as const
export type TerraformProvider = (typeof TERRAFORM_PROVIDERS)[number]

/** Resource names: Terraform identifiers made from what a resource is called, unique in the file. */
class ResourceNames {
  private readonly taken = new Set<string>()

  name(type: string, ...candidates: (string | undefined)[]): string {
    const base =
      candidates
        .map((text) =>
          (text ?? '')
            .toLowerCase()
            .replace(/[^a-z0-9]+/g, '_')
            .replace(/^_+|_+$/g, '')
            .slice(0, 48),
        )
        .find((slug) => slug !== '') ?? type
    const start = /^[a-z_]/.test(base) ? base : `${type}_${base}`
    let name = start
    for (let n = 2; this.taken.has(`${type}.${name}`); n++) name = `${start}_${n}`
    this.taken.add(`${type}.${name}`)
    return name
  }
}

const importBlock = (type: string, name: string, id: string) =>
  block('import', [], [attribute('to', new HclExpression(`${type}.${name}`)), attribute('id', id)])

/** The entries whose value is defined, so that absent fields are not written. */
const defined = (entries: [string, HclValue | undefined][]): [string, HclValue][] =>
  entries.filter((entry): entry is [string, HclValue] => entry[1] !== undefined)

const optionalText = (text: string | undefined) => (text ? text : undefined)

class TerraformWriter {
  private readonly names = new ResourceNames()
  /** custom ruleset id → its resource's name, so that execute rules refer to it */
  private readonly rulesetNames = new Map<string, string>()
  private readonly items: HclBodyItem[] = []

  constructor(
    private readonly bundle: ZoneBundle,
    private readonly provider: TerraformProvider,
  ) {}

  private get zoneId() {
    return this.bundle.zone.id
  }

  private get nested() {
    return this.provider !== 'v5'
  }

  write(): string {
    this.header()
    // Custom rulesets first: the entry points that execute them refer to them.
    const rulesets = [...this.bundle.rulesets].sort(
      (a, b) => Number(a.kind === 'zone') - Number(b.kind === 'zone'),
    )
    for (const ruleset of rulesets) {
      const name = this.names.name(
        'cloudflare_ruleset',
        ruleset.kind === 'zone' ? ruleset.phase : ruleset.name,
      )
      this.rulesetNames.set(ruleset.id, name)
    }
    for (const ruleset of rulesets) this.ruleset(ruleset)
    this.firewall()
    this.pageRules()
    if (this.provider === 'v3') this.previousWaf()
    return hclFile(this.items)
  }

  private header(): void {
    const { name, id } = this.bundle.zone
    const version = { v5: '~> 5', v4: '~> 4', v3: '~> 3.35' }[this.provider]
    const lines = [
      `Zone ${name} (${id}), exported by Zone Workbench for the Cloudflare provider ${this.provider} (${version}).`,
      'Each import block adopts the resource the zone already has, instead of creating it again.',
    ]
    if (this.provider !== 'v5') {
      lines.push(
        'Import blocks need Terraform 1.5 or later: with an older Terraform, remove them and run',
        '`terraform import <to> <id>` for each instead.',
      )
    }
    if (this.provider === 'v3') {
      lines.push(
        'The cloudflare_waf_* resources configure the previous managed-rules product: they stop',
        "working once the zone migrates to managed rulesets (the provider's 4.x drops them).",
      )
    }
    this.items.push(
      comment(lines.join('\n')),
      block(
        'terraform',
        [],
        [
          block(
            'required_providers',
            [],
            [
              attribute('cloudflare', {
                source: 'cloudflare/cloudflare',
                version,
              }),
            ],
          ),
        ],
      ),
    )
  }

  private resource(type: string, name: string, body: HclBodyItem[], importId: string): void {
    this.items.push(block('resource', [type, name], body), importBlock(type, name, importId))
  }

  private ruleset(ruleset: BundleRuleset): void {
    const name = this.rulesetNames.get(ruleset.id)!
    const body: HclBodyItem[] = [
      attribute('zone_id', this.zoneId),
      attribute('name', ruleset.name),
      ...(ruleset.description ? [attribute('description', ruleset.description)] : []),
      attribute('kind', ruleset.kind),
      attribute('phase', ruleset.phase),
    ]
    const rules = ruleset.rules.map((rule) => this.rule(rule))
    if (this.nested) {
      body.push(...rules.map((rule) => block('rules', [], this.blocks(rule))))
    } else if (rules.length > 0) {
      body.push(attribute('rules', rules))
    }
    // The provider's v5 names a zone's ruleset zones/…, its v4 (and v3) zone/….
    const scope = this.provider === 'v5' ? 'zones' : 'zone'
    this.resource('cloudflare_ruleset', name, body, `${scope}/${this.zoneId}/${ruleset.id}`)
  }

  /** A rule's fields as the provider takes them: not its id, version or time, which it reads. */
  private rule(rule: BundleRule): { [key: string]: HclValue } {
    const {
      id: _id,
      version: _version,
      last_updated: _updated,
      categories: _categories,
      action_parameters: parameters,
      ...fields
    } = rule
    const entries = defined([
      ['ref', fields.ref],
      ['description', optionalText(fields.description)],
      ['expression', fields.expression],
      ['action', fields.action],
      [
        'action_parameters',
        parameters === undefined ? undefined : this.parameters(rule.action, parameters),
      ],
      ['enabled', fields.enabled],
      ['logging', fields.logging],
      ['exposed_credential_check', fields.exposed_credential_check],
      ['ratelimit', fields.ratelimit as HclValue | undefined],
    ])
    return Object.fromEntries(entries)
  }

  /** `action_parameters`, JSON as the API holds it, with executed custom rulesets by reference. */
  private parameters(action: string, parameters: Record<string, unknown>): HclValue {
    const { id, rules, ...rest } = parameters
    const entries: [string, HclValue | undefined][] = [
      [
        'id',
        typeof id === 'string' && this.rulesetNames.has(id)
          ? new HclExpression(`cloudflare_ruleset.${this.rulesetNames.get(id)}.id`)
          : (id as HclValue | undefined),
      ],
      ...Object.entries(rest).map(([key, value]): [string, HclValue] => [key, value as HclValue]),
    ]
    if (rules !== undefined) {
      // A skip rule's rules map a ruleset's id to rule ids: a map of lists in v5, of
      // comma-separated strings in v4.
      const map = rules as Record<string, string[]>
      entries.push([
        'rules',
        action === 'skip'
          ? new HclMap(
              Object.fromEntries(
                Object.entries(map).map(([ruleset, ids]) => [
                  ruleset,
                  this.nested ? ids.join(',') : ids,
                ]),
              ),
            )
          : (rules as HclValue),
      ])
    }
    return Object.fromEntries(defined(entries))
  }

  /** v4's nested blocks: every object, and every list of objects, becomes blocks of its name. */
  private blocks(value: { [key: string]: HclValue }): HclBodyItem[] {
    const attributes: HclBodyItem[] = []
    const blocks: HclBodyItem[] = []
    for (const [key, item] of Object.entries(value)) {
      if (isHclObject(item)) blocks.push(block(key, [], this.blocks(item)))
      else if (Array.isArray(item) && item.length > 0 && item.every(isHclObject)) {
        blocks.push(...item.map((entry) => block(key, [], this.blocks(entry))))
      } else attributes.push(attribute(key, item))
    }
    return [...attributes, ...blocks]
  }

  private firewall(): void {
    const { filters, firewall_rules: rules } = this.bundle
    const filterNames = new Map<string, string>()
    const filterById = new Map(filters.map((filter) => [filter.id, filter]))
    const used = new Set(rules.map((rule) => rule.filter.id))
    const filterBody = (filter: BundleFilter): [string, HclValue][] =>
      defined([
        ['expression', filter.expression],
        ['paused', filter.paused],
        ['description', optionalText(filter.description)],
        ['ref', optionalText(filter.ref)],
      ])
    for (const filter of filters) {
      // v5's firewall rule carries its filter within it: a filter of its own would be a second
      // one with the same expression (refused as a duplicate), so only the unused ones stand alone.
      if (!this.nested && used.has(filter.id)) continue
      const name = this.names.name(
        'cloudflare_filter',
        filter.ref,
        filter.description,
        `filter_${filter.id.slice(0, 8)}`,
      )
      filterNames.set(filter.id, name)
      const body = filterBody(filter)
      this.resource(
        'cloudflare_filter',
        name,
        this.nested
          ? [
              attribute('zone_id', this.zoneId),
              ...body.map(([key, value]) => attribute(key, value)),
            ]
          : [attribute('zone_id', this.zoneId), attribute('body', [Object.fromEntries(body)])],
        `${this.zoneId}/${filter.id}`,
      )
    }
    if (!this.nested && rules.length > 0) {
      this.items.push(
        comment(
          [
            "The provider's v5 cloudflare_firewall_rule takes only an action mode and a filter. Its",
            'schema lists simulate, ban, challenge, js_challenge and managed_challenge as modes, so',
            'it refuses a block, allow, log or bypass rule, and holds description, priority, paused',
            'and products read-only (see',
            'https://registry.terraform.io/providers/cloudflare/cloudflare/latest/docs/resources/firewall_rule).',
            'provider=v4 writes every field; in v5, custom rules in a cloudflare_ruleset replace these.',
          ].join('\n'),
        ),
      )
    }
    for (const rule of rules) {
      const name = this.names.name(
        'cloudflare_firewall_rule',
        rule.ref,
        rule.description,
        `rule_${rule.id.slice(0, 8)}`,
      )
      const filter = filterById.get(rule.filter.id)
      const body = this.nested
        ? this.firewallRuleV4(rule, filterNames.get(rule.filter.id))
        : [
            attribute('zone_id', this.zoneId),
            attribute('action', { mode: rule.action }),
            attribute('filter', Object.fromEntries(filter === undefined ? [] : filterBody(filter))),
          ]
      this.resource('cloudflare_firewall_rule', name, body, `${this.zoneId}/${rule.id}`)
    }
  }

  private firewallRuleV4(rule: BundleFirewallRule, filterName: string | undefined): HclBodyItem[] {
    return defined([
      ['zone_id', this.zoneId],
      [
        'filter_id',
        filterName === undefined
          ? rule.filter.id
          : new HclExpression(`cloudflare_filter.${filterName}.id`),
      ],
      ['action', rule.action],
      ['priority', rule.priority ?? undefined],
      ['paused', rule.paused],
      ['description', optionalText(rule.description)],
      ['ref', optionalText(rule.ref)],
      ['products', rule.products?.length ? rule.products : undefined],
    ]).map(([key, value]) => attribute(key, value))
  }

  /**
   * Page rules: the API's list of actions is the provider's object of them, by id. The provider's
   * `target` is a URL pattern, which it sends with the operator `matches`: a rule whose target
   * has another operator cannot be written without changing what it selects, so it is left out
   * (Terraform then leaves it as it is in the zone) and a comment names it.
   */
  private pageRules(): void {
    const writable = (rule: BundlePageRule) =>
      withOperators(rule.targets).every((target) => target.constraint.operator === 'matches')
    const unwritable = this.bundle.page_rules.filter((rule) => !writable(rule))
    if (unwritable.length > 0) {
      this.items.push(
        comment(
          [
            "Left out: page rules whose target the provider's cloudflare_page_rule cannot hold. Its",
            'target is a URL pattern, sent with the operator matches, and these use another one',
            '(https://registry.terraform.io/providers/cloudflare/cloudflare/latest/docs/resources/page_rule).',
            'Terraform leaves them as they are in the zone; change them through the API.',
            ...unwritable.map(
              (rule) =>
                `- ${rule.id}: ${withOperators(rule.targets).map(describeTarget).join(', ')} (priority ${rule.priority})`,
            ),
          ].join('\n'),
        ),
      )
    }
    for (const rule of this.bundle.page_rules.filter(writable)) {
      const [target] = rule.targets
      const actions = Object.fromEntries(
        rule.actions.map(({ id, value }) => [id, (value ?? true) as HclValue]),
      )
      const fields = defined([
        ['zone_id', this.zoneId],
        ['target', target?.constraint.value],
        ['priority', rule.priority],
        ['status', rule.status],
      ]).map(([key, value]) => attribute(key, value))
      this.resource(
        'cloudflare_page_rule',
        this.names.name('cloudflare_page_rule', target?.constraint.value),
        this.nested
          ? [...fields, block('actions', [], this.blocks(actions))]
          : [...fields, attribute('actions', actions)],
        `${this.zoneId}/${rule.id}`,
      )
    }
  }

  /** The previous product (provider 3.x): packages, the modes that differ, URI overrides. */
  private previousWaf(): void {
    const waf = this.bundle.previous_waf
    if (waf === undefined) return
    for (const pkg of waf.packages) {
      const name = this.names.name('cloudflare_waf_package', pkg.name, pkg.id)
      this.resource(
        'cloudflare_waf_package',
        name,
        defined([
          ['zone_id', this.zoneId],
          ['package_id', pkg.id],
          ['sensitivity', pkg.sensitivity],
          ['action_mode', pkg.action_mode],
        ]).map(([key, value]) => attribute(key, value)),
        `${this.zoneId}/${pkg.id}`,
      )
    }
    // A group and a rule are each written when their mode is not the default.
    const modes = [
      ['cloudflare_waf_group', 'group', waf.groups],
      ['cloudflare_waf_rule', 'rule', waf.rules],
    ] as const
    for (const [type, kind, entries] of modes) {
      for (const entry of entries) {
        this.resource(
          type,
          this.names.name(type, `${kind}_${entry.id}`),
          [
            attribute('zone_id', this.zoneId),
            attribute(`${kind}_id`, entry.id),
            attribute('package_id', entry.package_id),
            attribute('mode', entry.mode),
          ],
          `${this.zoneId}/${entry.id}`,
        )
      }
    }
    for (const override of waf.overrides) {
      const name = this.names.name(
        'cloudflare_waf_override',
        override.description ?? undefined,
        override.id,
      )
      this.resource(
        'cloudflare_waf_override',
        name,
        defined([
          ['zone_id', this.zoneId],
          ['urls', override.urls],
          ['rules', new HclMap(override.rules ?? {})],
          ['groups', override.groups === undefined ? undefined : new HclMap(override.groups)],
          [
            'rewrite_action',
            override.rewrite_action === undefined
              ? undefined
              : new HclMap(override.rewrite_action as Record<string, string>),
          ],
          ['priority', override.priority ?? undefined],
          ['paused', override.paused],
          ['description', override.description ?? undefined],
        ]).map(([key, value]) => attribute(key, value)),
        `${this.zoneId}/${override.id}`,
      )
    }
  }
}

/**
 * The Terraform file of `bundle` for `provider`; provider 3.x only for a zone still on the
 * previous product (the only one 3.x is needed for), refused with a 400 otherwise.
 */
export function terraformText(bundle: ZoneBundle, provider: TerraformProvider): string {
  if (
    provider === 'v3' &&
    (bundle.previous_waf === undefined || bundle.waf_migration?.migration_state === 'completed')
  ) {
    throw badRequest(
      BUNDLE_ERRORS.unknownFormat,
      `The zone ${bundle.zone.name} does not run the previous WAF, so it has no provider 3.x export: use provider=v5 or v4`,
    )
  }
  return new TerraformWriter(bundle, provider).write()
}
