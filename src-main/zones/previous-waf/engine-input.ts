// The previous product as the engine runs it: the catalog's rules with the modes the zone's
// settings give them, its page rules and URI-based overrides as expressions.

import { describeTarget } from '@shared/api/waf'
import type { EnginePreviousWaf } from '../../engine'
import {
  inPrecedence,
  pageRuleExpression,
  pageRuleTargetExpression,
  wafEffect,
} from '../page-rules/page-rules'
import type { LegacyCatalog } from './catalog'
import type { MigrationSnapshot } from './migration'

export function enginePreviousWaf(
  snapshot: Pick<
    MigrationSnapshot,
    'settings' | 'overrides' | 'pageRules' | 'groupModes' | 'ruleModes'
  >,
  catalog: LegacyCatalog,
): EnginePreviousWaf {
  const { settings } = snapshot
  return {
    enabled: settings.waf === 'on',
    pageRules: inPrecedence(snapshot.pageRules).map((rule) => {
      const target = rule.targets[0]!
      const effect = wafEffect(rule)
      return {
        id: rule.id,
        pattern: describeTarget(target),
        expression: pageRuleTargetExpression(target),
        ...(effect === undefined ? {} : { effect }),
      }
    }),
    // The lowest priority number wins; equal ones in the order they were created.
    overrides: snapshot.overrides
      .filter((override) => !override.paused)
      .sort((a, b) => a.priority - b.priority)
      .map((override) => ({
        id: override.id,
        description: override.description,
        expression: override.urls.map((url) => pageRuleExpression(url)).join(' or '),
        rules: override.rules,
        groups: override.groups,
        rewrite_action: override.rewrite_action,
      })),
    packages: catalog.packages.map((pkg) => {
      const groupModes = snapshot.groupModes.get(pkg.id) ?? new Map<string, string>()
      const ruleModes = snapshot.ruleModes.get(pkg.id) ?? new Map<string, string>()
      return {
        id: pkg.id,
        name: pkg.name,
        detection_mode: pkg.detection_mode,
        ...(pkg.detection_mode === 'anomaly'
          ? { sensitivity: settings.sensitivity, action_mode: settings.action_mode }
          : {}),
        groups: catalog.groups(pkg.id).map((group) => ({
          id: group.id,
          name: group.name,
          mode: (groupModes.get(group.id) ?? group.mode) === 'off' ? 'off' : 'on',
        })),
        rules: catalog.rules(pkg.id).map((rule) => ({
          id: rule.id,
          description: rule.description,
          group_id: rule.group_id,
          kind: rule.kind,
          mode: ruleModes.get(rule.id) ?? (rule.kind === 'deny' ? 'default' : rule.default_mode),
          default_mode: rule.default_mode,
          ...(rule.score === undefined ? {} : { score: rule.score }),
          expression: rule.expression,
        })),
      }
    }),
  }
}
