// The previous product's rule catalog (resources/previous-waf/catalog.json): its two packages,
// their groups and rules, with the expressions that let the workbench simulate them. The catalog
// is the same for every zone; a zone stores only where its settings differ from the defaults.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WafDetectionMode, WafGroupMode, WafRuleMode } from '@shared/api/waf'

export type LegacyRuleKind = 'deny' | 'allow' | 'anomaly'

export interface LegacyPackage {
  id: string
  name: string
  description: string
  detection_mode: WafDetectionMode
}

export interface LegacyGroup {
  id: string
  package_id: string
  name: string
  description: string | null
  /** the group's mode until a zone changes it */
  mode: WafGroupMode
}

export interface LegacyRule {
  id: string
  package_id: string
  group_id: string
  description: string
  priority: string
  kind: LegacyRuleKind
  /** deny rules: disable/simulate/block/challenge; allow and anomaly rules: on/off */
  default_mode: WafRuleMode
  /** anomaly rules: what a match adds to the request's anomaly score */
  score?: number
  expression: string
}

export interface LegacyCatalogFile {
  version: string
  packages: LegacyPackage[]
  groups: LegacyGroup[]
  rules: LegacyRule[]
}

/** The modes a rule of `kind` may be set to. */
export function allowedModes(kind: LegacyRuleKind): WafRuleMode[] {
  return kind === 'deny' ? ['default', 'disable', 'simulate', 'block', 'challenge'] : ['on', 'off']
}

export class LegacyCatalog {
  readonly packages: readonly LegacyPackage[]
  private readonly groupsByPackage = new Map<string, LegacyGroup[]>()
  private readonly rulesByPackage = new Map<string, LegacyRule[]>()
  private readonly groupById = new Map<string, LegacyGroup>()

  constructor(file: LegacyCatalogFile) {
    this.packages = file.packages
    for (const group of file.groups) {
      this.groupById.set(group.id, group)
      const list = this.groupsByPackage.get(group.package_id) ?? []
      list.push(group)
      this.groupsByPackage.set(group.package_id, list)
    }
    for (const rule of file.rules) {
      const list = this.rulesByPackage.get(rule.package_id) ?? []
      list.push(rule)
      this.rulesByPackage.set(rule.package_id, list)
    }
  }

  package(id: string): LegacyPackage | undefined {
    return this.packages.find((p) => p.id === id)
  }

  groups(packageId: string): readonly LegacyGroup[] {
    return this.groupsByPackage.get(packageId) ?? []
  }

  group(packageId: string, groupId: string): LegacyGroup | undefined {
    const group = this.groupById.get(groupId)
    return group?.package_id === packageId ? group : undefined
  }

  /** The package's rules in catalog order (the order they run in). */
  rules(packageId: string): readonly LegacyRule[] {
    return this.rulesByPackage.get(packageId) ?? []
  }

  rule(packageId: string, ruleId: string): LegacyRule | undefined {
    return this.rules(packageId).find((rule) => rule.id === ruleId)
  }
}

/** Reads `<resourcesDir>/previous-waf/catalog.json`. */
export function readLegacyCatalog(resourcesDir: string): LegacyCatalog {
  const file = join(resourcesDir, 'previous-waf', 'catalog.json')
  return new LegacyCatalog(JSON.parse(readFileSync(file, 'utf8')) as LegacyCatalogFile)
}
