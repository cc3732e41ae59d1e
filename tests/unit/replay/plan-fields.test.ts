// The Rules fields a compiled zone reads (src-main/engine/plan.ts planFields), which a replay
// compares with what its log lacked: every planned expression's fields, and the request's
// headers, cookies and body for a deployment of the CRS ruleset, which reads them outside Rules.
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { compileZone } from '../../../src-main/engine'
import { ManagedCatalog, readCatalogFiles } from '../../../src-main/zones/rulesets/catalog'
import { entrypoint, GENERAL, OWASP } from '../../../scripts/detection-rates'
import { blockingRule } from './blocking-rule'

const catalog = new ManagedCatalog(readCatalogFiles(resolve(__dirname, '../../../resources')))
const firewallRule = blockingRule('ip.src.country eq "T1"')
const fieldsOf = (rulesets: string[]) =>
  compileZone({
    zoneEntrypoint: entrypoint(rulesets.map((ruleset) => ({ ruleset }))),
    firewallRules: [firewallRule],
    resolveRuleset: (id, version) => catalog.resolve(id, version),
  }).fields

describe('a compiled zone’s fields', () => {
  it("lists its firewall rules' and its managed rules' fields, sorted", () => {
    const fields = fieldsOf([GENERAL])
    expect(fields).toContain('ip.src.country')
    expect(fields).toContain('http.request.uri.path')
    expect(fields).toEqual([...fields].sort())
  })

  it('counts a CRS deployment as reading the headers, cookies and body', () => {
    const crs = ['http.cookie', 'http.request.body.raw', 'http.request.headers']
    expect(fieldsOf([OWASP])).toEqual(expect.arrayContaining(crs))
    expect(
      compileZone({ firewallRules: [firewallRule], resolveRuleset: () => undefined }).fields,
    ).toEqual(['ip.src.country'])
  })
})
