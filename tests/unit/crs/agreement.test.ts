// The workbench's OWASP managed ruleset against ModSecurity 2.9.7 running CRS 3.3.4 (issue 18):
// every request of the CRS corpus (tests/fixtures/crs/) through the real engine at paranoia levels
// 1-4, compared with the golden files `npm run crs:reference` wrote. Per level, and separately for
// CRS's regression tests and the benign requests: the share of requests with the same set of
// matched scoring rules, and with the same anomaly score. It prints the figures and the rules that
// disagree most, and holds each figure at a floor no lower than it has reached (raise the floors as
// the figures rise; the goal is 99 %). Requests excluded are named in docs/crs-exclusions.md.
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TraceNode } from '@shared/api/simulate'
import { requestContext, type EvaluationContext } from '@shared/expression'
import { compileZone } from '../../../src-main/engine'
import { ManagedCatalog, readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import {
  entrypoint,
  OWASP,
  owaspOverrides,
  PARANOIA_LEVELS,
} from '../../../scripts/detection-rates'
import { describeRequest, readCorpus, readGolden, type CorpusRecord } from './corpus'

const ROOT = resolve(import.meta.dirname, '../../..')

/** A threshold no request reaches: the anomaly rule only reports the total. */
const NEVER = 10_000

/**
 * Floors, per level: [regression same rules, same score, benign same rules, same score]; the
 * shares the CRS interpreter reaches, rounded down to four places (less than one request of the
 * 2,365 regression ones): PL1 2365 and 2364, PL2 2364 and 2363, PL3 and PL4 2363 and 2362.
 */
const FLOORS: Record<number, readonly [number, number, number, number]> = {
  1: [1, 0.9995, 1, 1],
  2: [0.9995, 0.9991, 1, 1],
  3: [0.9991, 0.9987, 1, 1],
  4: [0.9991, 0.9987, 1, 1],
}

function excludedIds(): Set<string> {
  const doc = readFileSync(resolve(ROOT, 'docs/crs-exclusions.md'), 'utf8')
  return new Set([...doc.matchAll(/^- `([^`]+)`:/gm)].map((m) => m[1]!))
}

interface Answer {
  rules: number[]
  score: number
}

/** The matched OWASP scoring rules (by the CRS id their description starts with) and the total. */
function answerOf(trace: readonly TraceNode[]): Answer {
  const rules = new Set<number>()
  let score = 0
  let total: number | undefined
  const visit = (nodes: readonly TraceNode[]) => {
    for (const node of nodes) {
      if (node.ruleset_id === OWASP && node.matched === true) {
        if (node.total_score !== undefined) total = node.total_score
        else if (node.score !== undefined) {
          score += node.score
          const id = /^(\d{6})\b/.exec(node.description)
          if (id) rules.add(Number(id[1]))
        }
      }
      if (node.children) visit(node.children)
    }
  }
  visit(trace)
  return { rules: [...rules].sort((a, b) => a - b), score: total ?? score }
}

interface Figures {
  requests: number
  sameRules: number
  sameScore: number
}

const share = (n: number, of: number) => (of === 0 ? 1 : n / of)
const percent = (rate: number) => `${(rate * 100).toFixed(2)} %`

describe('OWASP ruleset agrees with ModSecurity + CRS 3.3.4 on the CRS corpus', () => {
  const corpus = readCorpus()
  const excluded = excludedIds()
  const catalog = new ManagedCatalog(readCatalogFiles(resolve(ROOT, 'resources')))
  const prepare = (records: CorpusRecord[]) =>
    records
      .filter((r) => !excluded.has(r.id))
      .map((r) => ({ id: r.id, ctx: requestContext(describeRequest(r)) as EvaluationContext }))
  const sets = { regression: prepare(corpus.regression), benign: prepare(corpus.benign) }

  it('excludes only requests of the corpus, each named in docs/crs-exclusions.md', () => {
    const ids = new Set([...corpus.regression, ...corpus.benign].map((r) => r.id))
    expect([...excluded].filter((id) => !ids.has(id))).toEqual([])
    expect(excluded.size).toBeLessThan(40)
  })

  it.each(PARANOIA_LEVELS)(
    'at PL%i, at or above the floors',
    (level) => {
      const golden = readGolden(level)
      const zone = compileZone({
        zoneEntrypoint: entrypoint([{ ruleset: OWASP, overrides: owaspOverrides(level, NEVER) }]),
        firewallRules: [],
        resolveRuleset: (id, version) => catalog.resolve(id, version),
      })
      const missed = new Map<number, number>()
      const extra = new Map<number, number>()
      const count = (map: Map<number, number>, id: number) => map.set(id, (map.get(id) ?? 0) + 1)
      const measure = (requests: typeof sets.regression): Figures => {
        const figures: Figures = { requests: requests.length, sameRules: 0, sameScore: 0 }
        for (const { id, ctx } of requests) {
          const reference = golden.get(id)
          if (reference === undefined) throw new Error(`no golden answer for ${id}`)
          const ours = answerOf(
            zone.evaluate(ctx, { credentials: () => undefined, trace: true }).trace,
          )
          const theirs = new Set(reference.rules)
          const mine = new Set(ours.rules)
          if (ours.rules.join() === [...theirs].join()) figures.sameRules++
          if (ours.score === (reference.score ?? 0)) figures.sameScore++
          for (const rule of theirs) if (!mine.has(rule)) count(missed, rule)
          for (const rule of mine) if (!theirs.has(rule)) count(extra, rule)
        }
        return figures
      }
      const regression = measure(sets.regression)
      const benign = measure(sets.benign)
      const worst = (map: Map<number, number>) =>
        [...map]
          .sort((a, b) => b[1] - a[1])
          .slice(0, 8)
          .map(([rule, n]) => `${rule}×${n}`)
          .join(' ')
      const figure = (f: Figures) =>
        `same rules ${f.sameRules}/${f.requests} (${percent(share(f.sameRules, f.requests))}), ` +
        `same score ${f.sameScore}/${f.requests} (${percent(share(f.sameScore, f.requests))})`
      console.log(
        `PL${level}: regression ${figure(regression)}; benign ${figure(benign)}\n` +
          `  missed most: ${worst(missed)}\n  extra most: ${worst(extra)}`,
      )
      const [rules, score, benignRules, benignScore] = FLOORS[level]!
      expect(share(regression.sameRules, regression.requests)).toBeGreaterThanOrEqual(rules)
      expect(share(regression.sameScore, regression.requests)).toBeGreaterThanOrEqual(score)
      expect(share(benign.sameRules, benign.requests)).toBeGreaterThanOrEqual(benignRules)
      expect(share(benign.sameScore, benign.requests)).toBeGreaterThanOrEqual(benignScore)
    },
    300_000,
  )
})
