// The Rulesets API's semantics over one object's rulesets (a zone's, or the account's), with the
// managed catalog beside them. Each change makes a new ruleset version: `version` goes up by one,
// a rule whose content changed gets its own version up by one, an unchanged or merely moved rule
// keeps its version, and a new rule starts at "1" with `ref` equal to its id.
//
// One piece over 500 lines: one class whose public methods are the API's operations and whose
// private ones (checking kinds and deployments, building rules, making the next version) are
// shared by all of them.

import { ApiError, couldNotRoute } from '@shared/api/errors'
import { contentKey } from '@shared/sorted-keys'
import type {
  Phase,
  Position,
  Rule,
  RuleBody,
  RulePlacementBody,
  Ruleset,
  RulesetCreateBody,
  RulesetKind,
  RulesetSummary,
  RulesetUpdateBody,
} from '@shared/api/rulesets'
import { publicView, type ManagedCatalog } from './catalog'
import { invalidValue, Problems } from '../problems'
import { summaryOf, type RulesetStore } from './store'
import { checkRule, isExecute, type RuleContent, type RuleScope } from './validate'
import { API_ERRORS, RULESET_ERRORS } from '@shared/api/error-codes'

export interface RulesetsOptions {
  store: RulesetStore
  catalog: ManagedCatalog
  /** a zone's rulesets (entry points of kind `zone`) or the account's (kind `root`) */
  scope: 'zone' | 'account'
  /** the path of the object in the API, e.g. /zones/<id>, for the vendor's 7003 wording */
  basePath: string
  /** The time stamped on what is written, in the vendor's format (the service's clock). */
  timestamp: () => string
  newId: () => string
  /** says what the write about to happen changes, for the zone's history */
  describe: (note: string) => void
  /** why managed rulesets may not be deployed here, when they may not (a zone not yet migrated) */
  managedDeploymentsRefused?: string
}

const SOURCES: Partial<Record<Phase, string>> = {
  http_request_firewall_managed: 'firewall_managed',
  http_request_firewall_custom: 'firewall_custom',
}

// Stable text of a rule's content, to tell a changed rule from one sent back unchanged.
const ruleKey = (content: RuleContent, ref: string): string => contentKey({ ...content, ref })

function contentOf(rule: Rule): RuleContent {
  return {
    action: rule.action,
    expression: rule.expression ?? '',
    description: rule.description,
    enabled: rule.enabled,
    ...(rule.action_parameters === undefined ? {} : { action_parameters: rule.action_parameters }),
    ...(rule.logging === undefined ? {} : { logging: rule.logging }),
    ...(rule.exposed_credential_check === undefined
      ? {}
      : { exposed_credential_check: rule.exposed_credential_check }),
    ...(rule.ratelimit === undefined ? {} : { ratelimit: rule.ratelimit }),
  }
}

export class Rulesets {
  private readonly entrypointKind: RulesetKind

  constructor(private readonly options: RulesetsOptions) {
    this.entrypointKind = options.scope === 'zone' ? 'zone' : 'root'
  }

  private get store() {
    return this.options.store
  }

  private notFound(rest: string): ApiError {
    return couldNotRoute(`${this.options.basePath}/rulesets${rest}`)
  }

  // --- reading --------------------------------------------------------------------------------

  /** The object's own rulesets, then the managed rulesets it may deploy. */
  list(): RulesetSummary[] {
    return [
      ...this.store.list().map(summaryOf),
      ...this.options.catalog.latest().map((ruleset) => summaryOf(publicView(ruleset))),
    ]
  }

  get(id: string): Ruleset {
    const own = this.store.get(id)
    if (own !== undefined) return own
    const managed = this.options.catalog.resolve(id)
    if (managed !== undefined) return publicView(managed)
    throw this.notFound(`/${id}`)
  }

  entrypoint(phase: Phase): Ruleset {
    const ruleset = this.store.entrypoint(phase, this.entrypointKind)
    if (ruleset === undefined) {
      throw new ApiError(
        404,
        API_ERRORS.noEntrypoint,
        `could not find entrypoint ruleset in the ${phase} phase`,
      )
    }
    return ruleset
  }

  entrypointVersions(phase: Phase): RulesetSummary[] {
    const ruleset = this.store.entrypoint(phase, this.entrypointKind)
    return ruleset === undefined ? [] : this.store.versions(ruleset.id)
  }

  entrypointVersion(phase: Phase, version: string): Ruleset {
    const ruleset = this.store.entrypoint(phase, this.entrypointKind)
    const found = ruleset && this.ownVersion(ruleset.id, version)
    if (found === undefined) throw this.notFound(`/phases/${phase}/entrypoint/versions/${version}`)
    return found
  }

  versions(id: string): RulesetSummary[] {
    if (this.store.get(id) !== undefined) return this.store.versions(id)
    const managed = this.options.catalog.versions(id)
    if (managed.length === 0) throw this.notFound(`/${id}/versions`)
    return managed.map((ruleset) => summaryOf(publicView(ruleset)))
  }

  version(id: string, version: string): Ruleset {
    const own = this.store.get(id) === undefined ? undefined : this.ownVersion(id, version)
    const managed = this.options.catalog.resolve(id, version)
    const found = own ?? (managed === undefined ? undefined : publicView(managed))
    if (found === undefined || version === 'latest') {
      throw this.notFound(`/${id}/versions/${version}`)
    }
    return found
  }

  /** The rules of `version` of `id` that carry `tag`. */
  byTag(id: string, version: string, tag: string): Ruleset {
    const ruleset = this.version(id, version)
    return { ...ruleset, rules: ruleset.rules.filter((rule) => rule.categories?.includes(tag)) }
  }

  private ownVersion(id: string, version: string): Ruleset | undefined {
    return /^[1-9]\d*$/.test(version) ? this.store.version(id, Number(version)) : undefined
  }

  // --- changing -------------------------------------------------------------------------------

  create(body: RulesetCreateBody): Ruleset {
    const problems = new Problems()
    this.checkNewKind(body, problems)
    problems.check()
    const shell = {
      id: this.options.newId(),
      name: body.name,
      description: body.description ?? '',
      kind: body.kind,
      phase: body.phase,
    }
    const rules = this.buildRules(body.rules ?? [], [], this.scopeFor(shell), problems)
    const ruleset = this.assemble(shell, 1, rules)
    this.options.describe(
      this.deploymentsNote([], rules) ??
        `Ruleset ${ruleset.name} created (${ruleset.phase}, ${rules.length} rules)`,
    )
    this.store.save(ruleset)
    return ruleset
  }

  update(id: string, body: RulesetUpdateBody): Ruleset {
    return this.replace(this.writable(id), body)
  }

  /**
   * Makes the ruleset with `given`'s id equal to `given` (a zone imported from a bundle), its
   * rules checked as a PUT's are. A ruleset the object does not hold is stored as given: ids,
   * versions and times kept. One it holds gets its next version, as a PUT makes it, except that a
   * new rule keeps the id it was given; when nothing differs, it stays as it is.
   */
  adopt(given: Ruleset): Ruleset {
    const current = this.store.get(given.id)
    const problems = new Problems()
    if (current === undefined) this.checkNewKind(given, problems)
    else checkUnchanged(given, current, problems)
    problems.check()
    const scope = this.scopeFor(given)
    const byId = new Map((current?.rules ?? []).map((rule) => [rule.id, rule]))
    const seen = new Set<string>()
    const rules = given.rules.flatMap((input, index) => {
      if (seen.has(input.id)) {
        problems.add(
          RULESET_ERRORS.duplicateRuleId,
          invalidValue(input.id, 'id', 'two rules of the ruleset have it'),
          `/rules/${index}/id`,
        )
      }
      seen.add(input.id)
      const content = checkRule(input, `/rules/${index}`, scope, problems)
      if (content === undefined) return []
      if (current !== undefined)
        return [this.materialize(content, byId.get(input.id), input.ref, input.id)]
      const { action, action_parameters, expression, description, ...rest } = content
      return [
        {
          id: input.id,
          version: input.version,
          action,
          ...(action_parameters === undefined ? {} : { action_parameters }),
          expression,
          description,
          last_updated: input.last_updated,
          ref: input.ref,
          ...rest,
        },
      ]
    })
    problems.check()
    this.checkDeployments(rules, problems, (index) => `/rules/${index}`)
    problems.check()
    if (current === undefined) {
      const ruleset = {
        ...this.assemble(given, Number(given.version), rules),
        last_updated: given.last_updated,
      }
      this.options.describe(`Ruleset ${ruleset.name} imported (${ruleset.phase})`)
      this.store.save(ruleset)
      return ruleset
    }
    const unchanged =
      current.description === given.description &&
      rules.length === current.rules.length &&
      rules.every((rule, index) => rule === current.rules[index])
    if (unchanged) return current
    const next = this.nextVersion(current, rules, given.description)
    this.options.describe(
      `Ruleset ${current.name} (${current.phase}) imported: version ${next.version}`,
    )
    this.store.save(next)
    return next
  }

  /** PUT of an entry point: replaces its rules, creating the entry point when there is none. */
  putEntrypoint(phase: Phase, body: RulesetUpdateBody): Ruleset {
    const existing = this.store.entrypoint(phase, this.entrypointKind)
    const problems = new Problems()
    checkUnchanged(body, { kind: this.entrypointKind, phase }, problems)
    problems.check()
    if (existing !== undefined) return this.replace(existing, body)
    return this.create({
      name: body.name ?? 'default',
      kind: this.entrypointKind,
      phase,
      description: body.description,
      rules: body.rules,
    })
  }

  private replace(current: Ruleset, body: RulesetUpdateBody): Ruleset {
    const problems = new Problems()
    const entrypoint = current.kind === 'zone' || current.kind === 'root'
    checkUnchanged(entrypoint ? { ...body, name: undefined } : body, current, problems)
    problems.check()
    const rules =
      body.rules === undefined
        ? current.rules
        : this.buildRules(body.rules, current.rules, this.scopeFor(current), problems)
    const next = this.nextVersion(current, rules, body.description)
    this.options.describe(
      this.deploymentsNote(current.rules, rules) ??
        `Ruleset ${current.name} (${current.phase}) replaced: ${rules.length} rules, version ${next.version}`,
    )
    this.store.save(next)
    return next
  }

  remove(id: string): void {
    const ruleset = this.writable(id)
    const user = this.executorOf(id)
    if (user !== undefined) {
      throw new ApiError(
        400,
        RULESET_ERRORS.inUse,
        `ruleset ${id} cannot be deleted: rule ${user.rule} of ruleset ${user.ruleset} executes it`,
      )
    }
    this.options.describe(`Ruleset ${ruleset.name} (${ruleset.phase}) deleted`)
    this.store.delete(id)
  }

  addRule(id: string, body: RulePlacementBody): Ruleset {
    const current = this.writable(id)
    const problems = new Problems()
    const { position, ...input } = body
    if (input.id !== undefined && input.id !== '') {
      problems.add(
        RULESET_ERRORS.duplicateRuleId,
        invalidValue(input.id, 'id', 'a new rule gets its id from the service'),
        '/id',
      )
    }
    const content = checkRule(input, '', this.scopeFor(current), problems)
    problems.check()
    const rule = this.materialize(content!, undefined, input.ref)
    const rules = place(current.rules, rule, position ?? { after: '' }, problems)
    this.checkDeployments(rules, problems, (index) => (rules[index] === rule ? '' : undefined))
    problems.check()
    const next = this.nextVersion(current, rules)
    this.options.describe(`Ruleset ${current.name} (${current.phase}): rule ${rule.id} added`)
    this.store.save(next)
    return next
  }

  editRule(id: string, ruleId: string, body: RulePlacementBody): Ruleset {
    const current = this.writable(id)
    const existing = current.rules.find((rule) => rule.id === ruleId)
    if (existing === undefined) throw this.notFound(`/${id}/rules/${ruleId}`)
    const problems = new Problems()
    const { position, id: _id, ...input } = body
    const moveOnly = Object.keys(input).length === 0
    let rule = existing
    if (!moveOnly) {
      const content = checkRule(input, '', this.scopeFor(current), problems)
      problems.check()
      rule = this.materialize(content!, existing, input.ref)
    }
    const rules = place(current.rules, rule, position, problems)
    this.checkDeployments(rules, problems, (index) => (rules[index] === rule ? '' : undefined))
    problems.check()
    const next = this.nextVersion(current, rules)
    this.options.describe(
      `Ruleset ${current.name} (${current.phase}): rule ${ruleId} ${moveOnly ? 'moved' : 'edited'}`,
    )
    this.store.save(next)
    return next
  }

  deleteRule(id: string, ruleId: string): Ruleset {
    const current = this.writable(id)
    if (!current.rules.some((rule) => rule.id === ruleId)) {
      throw this.notFound(`/${id}/rules/${ruleId}`)
    }
    const next = this.nextVersion(
      current,
      current.rules.filter((rule) => rule.id !== ruleId),
    )
    this.options.describe(`Ruleset ${current.name} (${current.phase}): rule ${ruleId} deleted`)
    this.store.save(next)
    return next
  }

  deleteVersion(id: string, version: string): void {
    const ruleset = this.writable(id)
    if (this.ownVersion(id, version) === undefined)
      throw this.notFound(`/${id}/versions/${version}`)
    if (ruleset.version === version) {
      throw new ApiError(
        400,
        RULESET_ERRORS.inUse,
        `version ${version} is the latest version of ruleset ${id} and cannot be deleted`,
      )
    }
    const user = this.executorOf(id, version)
    if (user !== undefined) {
      throw new ApiError(
        400,
        RULESET_ERRORS.inUse,
        `version ${version} of ruleset ${id} cannot be deleted: rule ${user.rule} of ruleset ${user.ruleset} executes it`,
      )
    }
    this.options.describe(`Ruleset ${ruleset.name}: version ${version} deleted`)
    this.store.deleteVersion(id, Number(version))
  }

  // --- helpers --------------------------------------------------------------------------------

  /** A ruleset of `body.kind` may be created here: not managed, not a second entry point. */
  private checkNewKind(body: Pick<Ruleset, 'kind' | 'phase'>, problems: Problems): void {
    const kindRefusal =
      body.kind === 'managed'
        ? 'managed rulesets are the vendor\u2019s and cannot be created'
        : (body.kind === 'zone' && this.options.scope !== 'zone') ||
            (body.kind === 'root' && this.options.scope !== 'account')
          ? `a ruleset of kind ${body.kind} cannot be created at this level`
          : undefined
    if (kindRefusal !== undefined) {
      problems.add(
        RULESET_ERRORS.kindRefused,
        invalidValue(body.kind, 'kind', kindRefusal),
        '/kind',
      )
    } else if (
      body.kind === this.entrypointKind &&
      this.store.entrypoint(body.phase, body.kind) !== undefined
    ) {
      problems.add(
        RULESET_ERRORS.entrypointExists,
        invalidValue(
          body.kind,
          'kind',
          `exceeded maximum number of ${body.kind} rulesets for phase ${body.phase}`,
        ),
        '/kind',
      )
    }
  }

  /** An own ruleset that may change: the vendor's 7003 for none, 20129 for a managed one. */
  private writable(id: string): Ruleset {
    const ruleset = this.store.get(id)
    if (ruleset !== undefined) return ruleset
    if (this.options.catalog.has(id)) {
      throw new ApiError(
        400,
        RULESET_ERRORS.managedReadOnly,
        `managed ruleset ${id} cannot be changed: deploy it with an execute rule and override its rules there`,
      )
    }
    throw this.notFound(`/${id}`)
  }

  private scopeFor(ruleset: Pick<Ruleset, 'id' | 'phase' | 'kind'>): RuleScope {
    return {
      phase: ruleset.phase,
      kind: ruleset.kind,
      catalog: this.options.catalog,
      // A ruleset cannot execute itself.
      ownRuleset: (id) => (id === ruleset.id ? undefined : this.store.get(id)),
    }
  }

  /** The first rule of any own ruleset that executes `id` (at `version`, if given). */
  private executorOf(id: string, version?: string): { ruleset: string; rule: string } | undefined {
    for (const ruleset of this.store.list()) {
      for (const rule of ruleset.rules) {
        if (
          isExecute(rule) &&
          rule.action_parameters.id === id &&
          (version === undefined || rule.action_parameters.version === version)
        ) {
          return { ruleset: ruleset.id, rule: rule.id }
        }
      }
    }
    return undefined
  }

  private buildRules(
    inputs: RuleBody[],
    current: Rule[],
    scope: RuleScope,
    problems: Problems,
  ): Rule[] {
    const byId = new Map(current.map((rule) => [rule.id, rule]))
    const seen = new Set<string>()
    const rules: Rule[] = []
    inputs.forEach((input, index) => {
      const at = `/rules/${index}`
      const content = checkRule(input, at, scope, problems)
      let existing: Rule | undefined
      if (input.id !== undefined && input.id !== '') {
        existing = byId.get(input.id)
        if (seen.has(input.id) || existing === undefined) {
          problems.add(
            RULESET_ERRORS.duplicateRuleId,
            invalidValue(
              input.id,
              'id',
              seen.has(input.id)
                ? 'two rules of the request have it'
                : 'no rule of this ruleset has it (leave id out for a new rule)',
            ),
            `${at}/id`,
          )
        }
        seen.add(input.id)
      }
      if (content !== undefined) rules.push(this.materialize(content, existing, input.ref))
    })
    problems.check()
    this.checkDeployments(rules, problems, (index) => `/rules/${index}`)
    problems.check()
    return rules
  }

  /**
   * A zone deploys each managed ruleset at most once (an account may deploy one several times).
   * `pointerOf` gives the body pointer of a rule by index, undefined for rules not in the body.
   */
  private checkDeployments(
    rules: Rule[],
    problems: Problems,
    pointerOf: (index: number) => string | undefined,
  ): void {
    if (this.options.scope !== 'zone') return
    const deployed = new Set<string>()
    const refused = this.options.managedDeploymentsRefused
    rules.forEach((rule, index) => {
      if (!isExecute(rule) || !this.options.catalog.has(rule.action_parameters.id)) return
      const id = rule.action_parameters.id
      if (refused !== undefined && rule.enabled) {
        const pointer = pointerOf(index)
        problems.add(
          RULESET_ERRORS.managedDeploymentRefused,
          invalidValue(id, 'id', refused),
          pointer === undefined ? undefined : `${pointer}/action_parameters/id`,
        )
      }
      if (deployed.has(id)) {
        const pointer = pointerOf(index)
        problems.add(
          RULESET_ERRORS.deployedTwice,
          invalidValue(id, 'id', 'a zone can deploy each managed ruleset only once'),
          pointer === undefined ? undefined : `${pointer}/action_parameters/id`,
        )
      }
      deployed.add(id)
    })
  }

  /**
   * A stored rule from checked content: new (with `newRuleId`, else an id of its own), unchanged,
   * or the next version of `existing`.
   */
  private materialize(
    content: RuleContent,
    existing: Rule | undefined,
    ref?: string,
    newRuleId?: string,
  ): Rule {
    const id = existing?.id ?? newRuleId ?? this.options.newId()
    const finalRef = ref !== undefined && ref !== '' ? ref : (existing?.ref ?? id)
    if (
      existing !== undefined &&
      ruleKey(content, finalRef) === ruleKey(contentOf(existing), existing.ref)
    ) {
      return existing
    }
    const { action, action_parameters, expression, description, ...rest } = content
    return {
      id,
      version: existing === undefined ? '1' : String(Number(existing.version) + 1),
      action,
      ...(action_parameters === undefined ? {} : { action_parameters }),
      expression,
      description,
      last_updated: this.options.timestamp(),
      ref: finalRef,
      ...rest,
    }
  }

  /**
   * What a change of rules did to the managed rulesets they deploy, in words ("Deployed Cloudflare
   * OWASP Core Ruleset"), with a count of the other rules changed; undefined when it touched no
   * deployment. Unchanged rules are the same objects before and after (see materialize).
   */
  private deploymentsNote(before: readonly Rule[], after: readonly Rule[]): string | undefined {
    const nameOf = (rule: Rule) =>
      isExecute(rule) ? this.options.catalog.resolve(rule.action_parameters.id)?.name : undefined
    const earlier = new Map(before.map((rule) => [rule.id, rule]))
    const later = new Set(after.map((rule) => rule.id))
    const phrases: string[] = []
    let others = 0
    for (const rule of after) {
      const previous = earlier.get(rule.id)
      if (previous === rule) continue
      const name = nameOf(rule) ?? (previous && nameOf(previous))
      if (name === undefined) others += 1
      else if (previous === undefined || nameOf(previous) === undefined)
        phrases.push(`Deployed ${name}`)
      else if (previous.enabled !== rule.enabled)
        phrases.push(`${rule.enabled ? 'Enabled' : 'Disabled'} the deployment of ${name}`)
      else phrases.push(`Changed the deployment of ${name}`)
    }
    for (const rule of before) {
      if (later.has(rule.id)) continue
      const name = nameOf(rule)
      if (name === undefined) others += 1
      else phrases.push(`Removed the deployment of ${name}`)
    }
    if (phrases.length === 0) return undefined
    if (others > 0) phrases.push(`${others} other rule${others === 1 ? '' : 's'} changed`)
    return phrases.join('; ')
  }

  private nextVersion(current: Ruleset, rules: Rule[], description?: string): Ruleset {
    const version = (this.store.latestVersion(current.id) ?? 0) + 1
    return this.assemble(
      { ...current, description: description ?? current.description },
      version,
      rules,
    )
  }

  private assemble(
    shell: Pick<Ruleset, 'id' | 'name' | 'description' | 'kind' | 'phase'>,
    version: number,
    rules: Rule[],
  ): Ruleset {
    const source = SOURCES[shell.phase]
    return {
      id: shell.id,
      name: shell.name,
      description: shell.description,
      ...(source === undefined ? {} : { source }),
      kind: shell.kind,
      version: String(version),
      rules,
      last_updated: this.options.timestamp(),
      phase: shell.phase,
    }
  }
}

/**
 * name, kind and phase cannot change; a body may repeat them unchanged. The exception is the name
 * sent in a PUT of an existing entry point, which the vendor ignores, keeping the name it has
 * (https://github.com/cloudflare/cloudflare-go/pull/1346): Terraform v5 sends the name of its
 * configuration on every update, so `replace` leaves it out. Kind and phase stay refused there
 * too, as the update docs say of every ruleset
 * (https://developers.cloudflare.com/ruleset-engine/rulesets-api/update/).
 */
function checkUnchanged(
  body: RulesetUpdateBody,
  current: Partial<Pick<Ruleset, 'name' | 'kind' | 'phase'>>,
  problems: Problems,
): void {
  for (const field of ['name', 'kind', 'phase'] as const) {
    const value = body[field]
    if (value !== undefined && current[field] !== undefined && value !== current[field]) {
      problems.add(
        RULESET_ERRORS.immutableField,
        invalidValue(
          value,
          field,
          `the ${field} of a ruleset cannot change (it is ${current[field]})`,
        ),
        `/${field}`,
      )
    }
  }
}

/**
 * Puts `rule` where `position` says among `rules` (replacing the rule with its id, if there).
 * Without a position, an existing rule stays where it was. `before: ""` means first, `after: ""`
 * last, `index` counts from 1.
 */
function place(
  rules: Rule[],
  rule: Rule,
  position: Position | undefined,
  problems: Problems,
): Rule[] {
  const currentIndex = rules.findIndex((r) => r.id === rule.id)
  const others = rules.filter((r) => r.id !== rule.id)
  let index: number
  if (position === undefined) index = currentIndex < 0 ? others.length : currentIndex
  else if ('index' in position) index = position.index - 1
  else {
    const [key, anchor] =
      'before' in position ? ['before', position.before] : ['after', position.after]
    if (anchor === '') index = key === 'before' ? 0 : others.length
    else {
      const at = others.findIndex((r) => r.id === anchor)
      if (at < 0) {
        problems.add(
          RULESET_ERRORS.positionInvalid,
          invalidValue(anchor, key, 'no other rule of this ruleset has that id'),
          `/position/${key}`,
        )
        return rules
      }
      index = key === 'before' ? at : at + 1
    }
  }
  if (index > others.length) {
    problems.add(
      RULESET_ERRORS.positionInvalid,
      invalidValue(
        index + 1,
        'index',
        `the ruleset has ${others.length} other rules, so the highest index is ${others.length + 1}`,
      ),
      '/position/index',
    )
    return rules
  }
  return [...others.slice(0, index), rule, ...others.slice(index)]
}
