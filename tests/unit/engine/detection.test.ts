// Detection on the traffic corpus (tests/fixtures/traffic/attacks.ndjson and benign.ndjson),
// measured through the engine with scripts/detection-rates.ts: what a user relies on, not exact
// figures. The general managed ruleset catches most attacks with few false positives; OWASP
// catches no less when the paranoia level rises or the anomaly threshold falls; deploying both
// catches no less than the general ruleset alone.
import { beforeAll, describe, expect, it } from 'vitest'
import {
  configurations,
  createMeasurer,
  GENERAL,
  owaspConfiguration,
  OWASP,
  owaspOverrides,
  PARANOIA_LEVELS,
  THRESHOLDS,
  type Rates,
} from '../../../scripts/detection-rates'

let measure: ReturnType<typeof createMeasurer>
const owasp = new Map<string, Rates>()
const key = (level: number, threshold: number) => `${level}/${threshold}`

beforeAll(() => {
  measure = createMeasurer()
  for (const level of PARANOIA_LEVELS)
    for (const threshold of THRESHOLDS)
      owasp.set(key(level, threshold), measure(owaspConfiguration(level, threshold)))
})

describe('detection rates on the traffic corpus', () => {
  it('the general managed ruleset detects at least 80% of attacks with at most 2% false positives', () => {
    const rates = measure({ name: 'general', deployments: [{ ruleset: GENERAL }] })
    expect(rates.attacks).toBeGreaterThanOrEqual(200)
    expect(rates.benign).toBeGreaterThanOrEqual(200)
    expect(rates.detectionRate).toBeGreaterThanOrEqual(0.8)
    expect(rates.falsePositiveRate).toBeLessThanOrEqual(0.02)
  })

  it.each(THRESHOLDS)('OWASP at threshold %i detects no less as the paranoia level rises', (t) => {
    const detected = PARANOIA_LEVELS.map((level) => owasp.get(key(level, t))!.detected)
    for (let i = 1; i < detected.length; i++)
      expect(detected[i]).toBeGreaterThanOrEqual(detected[i - 1]!)
  })

  it.each(PARANOIA_LEVELS)('OWASP at PL%i detects no less as the threshold falls', (level) => {
    const detected = [...THRESHOLDS]
      .sort((a, b) => b - a)
      .map((threshold) => owasp.get(key(level, threshold))!.detected)
    for (let i = 1; i < detected.length; i++)
      expect(detected[i]).toBeGreaterThanOrEqual(detected[i - 1]!)
  })

  it('deploying OWASP beside the general ruleset detects no less than the general one alone', () => {
    const general = measure({ name: 'general', deployments: [{ ruleset: GENERAL }] })
    const both = measure({
      name: 'both',
      deployments: [{ ruleset: GENERAL }, { ruleset: OWASP, overrides: owaspOverrides(2, 25) }],
    })
    expect(both.detected).toBeGreaterThanOrEqual(general.detected)
  })

  it('the script measures every configuration it prints', () => {
    const names = configurations().map((c) => c.name)
    expect(names).toContain('General managed ruleset')
    for (const level of PARANOIA_LEVELS)
      for (const threshold of THRESHOLDS)
        expect(names).toContain(owaspConfiguration(level, threshold).name)
    expect(names.some((n) => n.startsWith('General + OWASP'))).toBe(true)
  })
})
