// What a rule must be, beyond the shape its schema gives it: an action the phase allows, an
// expression the Rules language accepts, action parameters that make sense for the action, and,
// for `execute`, a ruleset that exists and overrides that name its rules and tags. Every problem
// is reported with a JSON pointer into the request body; nothing is written until none is left.

import { Value } from 'typebox/value'
import { compileCredentialExpression, ExpressionError } from '@shared/expression'
import {
  MANAGED_OVERRIDE_ACTIONS,
  MANAGED_RULESET_IDS,
  Overrides,
  PHASES,
  RULE_ACTIONS,
  SKIP_PRODUCTS,
  type Phase,
  type RuleBody,
  type Ruleset,
  type RulesetKind,
} from '@shared/api/rulesets'
import { checkExpression } from '../check-expression'
import { invalidValue, Problems } from '../problems'
import type { ManagedCatalog } from './catalog'
import { RULESET_ERRORS } from '@shared/api/error-codes'

const RULE_EXPRESSION_CODES = {
  blank: RULESET_ERRORS.expressionBlank,
  invalid: RULESET_ERRORS.expressionInvalid,
}

/** A rule's own content: what a client sets (identity and versions are the caller's). */
export interface RuleContent {
  action: string
  expression: string
  description: string
  enabled: boolean
  action_parameters?: Record<string, unknown>
  logging?: { enabled: boolean }
  exposed_credential_check?: { username_expression: string; password_expression: string }
  ratelimit?: Record<string, unknown>
}

/** What a rule is checked against: the ruleset it goes into and what it could execute. */
export interface RuleScope {
  phase: Phase
  kind: RulesetKind
  catalog: ManagedCatalog
  /** the object's own rulesets (custom rulesets an execute rule may name) */
  ownRuleset: (id: string) => Ruleset | undefined
}

// The managed phase's entry point only deploys and skips; the custom phase takes the firewall
// actions. Other phases are stored as given: the workbench does not evaluate them.
const ENTRYPOINT_ACTIONS: Partial<Record<Phase, readonly string[]>> = {
  http_request_firewall_managed: ['execute', 'skip', 'log'],
  http_request_firewall_custom: [
    'block',
    'challenge',
    'js_challenge',
    'managed_challenge',
    'log',
    'skip',
    'execute',
  ],
}

// Actions that take no parameters at all.
const PARAMETERLESS = new Set(['log', 'challenge', 'js_challenge', 'managed_challenge'])

export function isExecute(rule: {
  action: string
  action_parameters?: Record<string, unknown>
}): rule is { action: 'execute'; action_parameters: { id: string; version?: string } } {
  return rule.action === 'execute' && typeof rule.action_parameters?.id === 'string'
}

/** Checks one rule of a request; undefined (with problems added) when it cannot be stored. */
export function checkRule(
  input: RuleBody,
  at: string,
  scope: RuleScope,
  problems: Problems,
): RuleContent | undefined {
  const before = problems.count
  const action = checkAction(input, at, scope, problems)
  const expression = checkExpression(
    input.expression,
    `${at}/expression`,
    scope.phase,
    problems,
    RULE_EXPRESSION_CODES,
  )
  if (input.exposed_credential_check !== undefined) {
    checkCredentialCheck(
      input.exposed_credential_check,
      `${at}/exposed_credential_check`,
      scope,
      problems,
    )
  }
  if (input.ratelimit !== undefined && scope.phase !== 'http_ratelimit') {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      `ratelimit is only allowed in the http_ratelimit phase`,
      `${at}/ratelimit`,
    )
  }
  const parameters =
    action === undefined
      ? undefined
      : checkParameters(action, input.action_parameters, `${at}/action_parameters`, scope, problems)
  if (problems.count > before || action === undefined || expression === undefined) return undefined
  return {
    action,
    expression,
    description: input.description ?? '',
    enabled: input.enabled ?? true,
    ...(parameters === undefined ? {} : { action_parameters: parameters }),
    ...(input.logging === undefined ? {} : { logging: input.logging }),
    ...(input.exposed_credential_check === undefined
      ? {}
      : { exposed_credential_check: input.exposed_credential_check }),
    ...(input.ratelimit === undefined ? {} : { ratelimit: input.ratelimit }),
  }
}

function checkAction(
  input: RuleBody,
  at: string,
  scope: RuleScope,
  problems: Problems,
): string | undefined {
  const pointer = `${at}/action`
  const action = input.action
  if (action === undefined || action === '') {
    problems.add(
      RULESET_ERRORS.actionInvalid,
      input.action_parameters === undefined
        ? invalidValue('', 'action', 'the action is required')
        : 'action is required for action parameters',
      pointer,
    )
    return undefined
  }
  if (!(RULE_ACTIONS as readonly string[]).includes(action)) {
    problems.add(
      RULESET_ERRORS.actionInvalid,
      invalidValue(action, 'action', `it is not an action: use one of ${RULE_ACTIONS.join(', ')}`),
      pointer,
    )
    return undefined
  }
  const allowed = scope.kind === 'managed' ? undefined : ENTRYPOINT_ACTIONS[scope.phase]
  if (allowed !== undefined && !allowed.includes(action)) {
    problems.add(
      RULESET_ERRORS.actionInvalid,
      invalidValue(
        action,
        'action',
        `it is not allowed in phase ${scope.phase} (allowed: ${allowed.join(', ')})`,
      ),
      pointer,
    )
    return undefined
  }
  return action
}

function checkCredentialCheck(
  check: NonNullable<RuleBody['exposed_credential_check']>,
  at: string,
  scope: RuleScope,
  problems: Problems,
): void {
  if (scope.phase !== 'http_request_firewall_custom' && scope.kind !== 'managed') {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      'exposed_credential_check is only allowed in the http_request_firewall_custom phase',
      at,
    )
    return
  }
  for (const field of ['username_expression', 'password_expression'] as const) {
    try {
      compileCredentialExpression(check[field])
    } catch (error) {
      if (!(error instanceof ExpressionError)) throw error
      problems.add(
        RULESET_ERRORS.expressionInvalid,
        invalidValue(check[field], field, `could not parse the expression: ${error.message}`),
        `${at}/${field}`,
      )
    }
  }
}

function checkParameters(
  action: string,
  parameters: Record<string, unknown> | undefined,
  at: string,
  scope: RuleScope,
  problems: Problems,
): Record<string, unknown> | undefined {
  if (action === 'execute') return checkExecute(parameters ?? {}, at, scope, problems)
  if (parameters === undefined) {
    if (action === 'skip' || action === 'score') {
      problems.add(
        RULESET_ERRORS.parametersInvalid,
        `action_parameters is required for action ${action}`,
        at,
      )
    }
    return undefined
  }
  if (PARAMETERLESS.has(action)) {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      `action_parameters is not allowed for action ${action}`,
      at,
    )
  } else if (action === 'skip') checkSkip(parameters, at, problems)
  else if (action === 'block') checkBlock(parameters, at, problems)
  else if (action === 'score' && !Number.isInteger(parameters.increment)) {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      invalidValue(
        parameters.increment ?? '',
        'increment',
        'a score rule needs an integer increment',
      ),
      `${at}/increment`,
    )
  }
  return parameters
}

const isStringArray = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string')

function checkSkip(parameters: Record<string, unknown>, at: string, problems: Problems): void {
  const fault = (message: string, field?: string) =>
    problems.add(RULESET_ERRORS.parametersInvalid, message, field ? `${at}/${field}` : at)
  const keys = ['ruleset', 'rulesets', 'rules', 'phases', 'products'].filter(
    (key) => parameters[key] !== undefined,
  )
  if (keys.length === 0) {
    fault('a skip rule needs at least one of ruleset, rulesets, rules, phases or products')
  }
  const together = (a: string, b: string) => {
    if (parameters[a] !== undefined && parameters[b] !== undefined) {
      fault(`action_parameters ${a} cannot be combined with ${b}`, b)
    }
  }
  together('ruleset', 'rulesets')
  together('ruleset', 'rules')
  together('ruleset', 'phases')
  together('rulesets', 'phases')
  if (parameters.ruleset !== undefined && parameters.ruleset !== 'current') {
    fault(invalidValue(parameters.ruleset, 'ruleset', 'the only value is "current"'), 'ruleset')
  }
  if (parameters.rulesets !== undefined && !isStringArray(parameters.rulesets)) {
    fault('rulesets must be an array of ruleset ids', 'rulesets')
  }
  if (parameters.rules !== undefined) {
    const rules = parameters.rules
    if (
      typeof rules !== 'object' ||
      rules === null ||
      Array.isArray(rules) ||
      !Object.values(rules).every(isStringArray)
    ) {
      fault('rules must map ruleset ids to arrays of rule ids', 'rules')
    }
  }
  if (
    parameters.phases !== undefined &&
    !(
      isStringArray(parameters.phases) &&
      parameters.phases.every((p) => PHASES.includes(p as Phase))
    )
  ) {
    fault('phases must be an array of phase names', 'phases')
  }
  if (
    parameters.products !== undefined &&
    !(
      isStringArray(parameters.products) &&
      parameters.products.every((p) => (SKIP_PRODUCTS as readonly string[]).includes(p))
    )
  ) {
    fault(`products must be an array of ${SKIP_PRODUCTS.join(', ')}`, 'products')
  }
}

function checkBlock(parameters: Record<string, unknown>, at: string, problems: Problems): void {
  const response = parameters.response as Record<string, unknown> | undefined
  if (response === undefined) return
  const status = response.status_code
  if (
    typeof status !== 'number' ||
    !Number.isInteger(status) ||
    status < 400 ||
    status > 499 ||
    typeof response.content !== 'string' ||
    typeof response.content_type !== 'string'
  ) {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      'a custom block response needs status_code (400 to 499), content and content_type',
      `${at}/response`,
    )
  }
}

/** A base64 X25519 public key: exactly 32 bytes. */
export function isX25519PublicKey(text: string): boolean {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(text)) return false
  return atob(text).length === 32
}

function checkExecute(
  parameters: Record<string, unknown>,
  at: string,
  scope: RuleScope,
  problems: Problems,
): Record<string, unknown> | undefined {
  const id = parameters.id
  if (typeof id !== 'string' || id === '') {
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      'an execute rule needs action_parameters.id, the ruleset to execute',
      `${at}/id`,
    )
    return undefined
  }
  const version = parameters.version
  if (version !== undefined && typeof version !== 'string') {
    problems.add(RULESET_ERRORS.parametersInvalid, 'version must be a string', `${at}/version`)
    return undefined
  }
  const target = executeTarget(id, version, scope)
  if (target === undefined) {
    const known = scope.catalog.has(id) || scope.ownRuleset(id) !== undefined
    problems.add(
      RULESET_ERRORS.targetMissing,
      known
        ? invalidValue(version ?? '', 'version', `ruleset ${id} has no such version`)
        : invalidValue(id, 'id', 'no ruleset with that id exists that this ruleset may execute'),
      known ? `${at}/version` : `${at}/id`,
    )
    return undefined
  }
  const matched = parameters.matched_data as { public_key?: unknown } | undefined
  if (matched !== undefined) {
    const key = matched.public_key
    if (typeof key !== 'string' || !isX25519PublicKey(key)) {
      problems.add(
        RULESET_ERRORS.publicKeyInvalid,
        invalidValue(
          key ?? '',
          'public_key',
          'it is not a base64-encoded X25519 public key (32 bytes)',
        ),
        `${at}/matched_data/public_key`,
      )
    }
  }
  if (parameters.overrides !== undefined) {
    checkOverrides(parameters.overrides, target, `${at}/overrides`, problems)
  }
  return { ...parameters, version: version ?? 'latest' }
}

/** The ruleset an execute rule runs: a managed one, or a custom one of the same object and phase. */
export function executeTarget(
  id: string,
  version: string | undefined,
  scope: Pick<RuleScope, 'catalog' | 'ownRuleset' | 'phase'>,
): Ruleset | undefined {
  const managed = scope.catalog.resolve(id, version)
  if (managed !== undefined) return managed.phase === scope.phase ? managed : undefined
  if (scope.catalog.has(id)) return undefined
  const own = scope.ownRuleset(id)
  if (own === undefined || own.kind !== 'custom' || own.phase !== scope.phase) return undefined
  return version === undefined || version === 'latest' || version === own.version ? own : undefined
}

function checkOverrides(raw: unknown, target: Ruleset, at: string, problems: Problems): void {
  if (!Value.Check(Overrides, raw)) {
    const [first] = Value.Errors(Overrides, raw)
    problems.add(
      RULESET_ERRORS.parametersInvalid,
      `overrides${first?.instancePath ?? ''} ${first?.message ?? 'is invalid'}`,
      `${at}${first?.instancePath ?? ''}`,
    )
    return
  }
  const overrides = raw
  const tags = new Set(target.rules.flatMap((rule) => rule.categories ?? []))
  const rules = new Map(target.rules.map((rule) => [rule.id, rule]))
  const actions: readonly string[] =
    target.id === MANAGED_RULESET_IDS.exposedCredentials
      ? [...MANAGED_OVERRIDE_ACTIONS, 'rewrite']
      : MANAGED_OVERRIDE_ACTIONS
  const fault = (message: string, pointer: string) =>
    problems.add(RULESET_ERRORS.overrideInvalid, message, pointer)
  const checkOverrideAction = (action: string | undefined, pointer: string) => {
    if (action !== undefined && !actions.includes(action)) {
      fault(
        invalidValue(action, 'action', `ruleset ${target.id} can be set to ${actions.join(', ')}`),
        pointer,
      )
    }
  }
  checkOverrideAction(overrides.action, `${at}/action`)
  overrides.categories?.forEach((entry, index) => {
    const pointer = `${at}/categories/${index}`
    if (!tags.has(entry.category)) {
      fault(
        invalidValue(entry.category, 'category', `no rule of ruleset ${target.id} has that tag`),
        `${pointer}/category`,
      )
    }
    checkOverrideAction(entry.action, `${pointer}/action`)
  })
  overrides.rules?.forEach((entry, index) => {
    const pointer = `${at}/rules/${index}`
    const rule = rules.get(entry.id)
    if (rule === undefined) {
      fault(
        invalidValue(entry.id, 'id', `ruleset ${target.id} has no rule with that id`),
        `${pointer}/id`,
      )
      return
    }
    checkOverrideAction(entry.action, `${pointer}/action`)
    if (entry.action !== undefined && rule.action === 'score') {
      fault(
        invalidValue(
          entry.action,
          'action',
          `rule ${rule.id} only adds to the anomaly score; set the action on the ruleset's anomaly rule`,
        ),
        `${pointer}/action`,
      )
    }
    if (entry.score_threshold !== undefined && rule.score_threshold === undefined) {
      fault(
        invalidValue(
          entry.score_threshold,
          'score_threshold',
          `rule ${rule.id} has no score threshold`,
        ),
        `${pointer}/score_threshold`,
      )
    }
  })
}
