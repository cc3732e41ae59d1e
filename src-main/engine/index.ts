// The ruleset engine: what a zone's configuration does to a request, and why. Pure: it is given
// the configuration and a credential lookup, compiles the configuration once (compileZone) and
// then evaluates requests against it; it touches no storage.
//
//   const zone = compileZone(config)
//   const decision = zone.evaluate(requestContext(request), { credentials })

import type { EvaluationContext } from '@shared/expression'
import { evaluatePlan, inDeploymentScope, type EvaluateOptions } from './evaluate'
import { planFields, planZone } from './plan'
import type { Decision, ZoneConfig } from './types'

export type * from './types'
export type { EvaluateOptions } from './evaluate'
export { orderFirewallRules } from './plan'

export interface CompiledZone {
  evaluate(ctx: EvaluationContext, options: EvaluateOptions): Decision
  /** whether some managed rules see the request: a deployment, or the previous WAF (evaluate.ts) */
  inDeploymentScope(ctx: EvaluationContext): boolean
  /** the Rules fields its expressions read, sorted (a replay says which its log lacked) */
  readonly fields: readonly string[]
}

/** Compiles every expression of `config` once; throws ExpressionError for one that is invalid. */
export function compileZone(config: ZoneConfig): CompiledZone {
  const plan = planZone(config)
  return {
    evaluate: (ctx, options) => evaluatePlan(plan, ctx, options),
    inDeploymentScope: (ctx) => inDeploymentScope(plan, ctx),
    fields: planFields(plan),
  }
}
