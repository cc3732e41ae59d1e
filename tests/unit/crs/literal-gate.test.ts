// The @rx rules' literal gates (src-main/engine/crs/literal-gate.ts): one scan of a value says
// which rules of its group can match it, and only those run their regex.
import { describe, expect, it } from 'vitest'
import { GateGroup, regexGate } from '../../../src-main/engine/crs/literal-gate'
import type { CrsRule } from '../../../src-main/engine/crs/program'

function rx(parameter: string, extra: Partial<CrsRule> = {}): CrsRule {
  return {
    phase: 2,
    variables: [{ collection: 'ARGS' }],
    operator: { name: 'rx', parameter, negated: false },
    transformations: [],
    ...extra,
  }
}

describe('literal gates of @rx rules', () => {
  it('give each rule of a group only the values holding one of its literals, in order', () => {
    const group = new GateGroup()
    group.add(0, regexGate(rx('(?i)union\\s+select'))!)
    group.add(1, regexGate(rx('<script[^>]*>'))!)
    group.seal()
    const candidates: (number[] | undefined)[] = []
    group.scan(
      [
        ['ARGS:a', 'plain text'],
        ['ARGS:b', '1 UNION   SELECT 2'],
        ['ARGS:c', '<SCRIPT>alert(1)</script>'],
        ['ARGS:d', 'union select <script>'],
      ],
      candidates,
    )
    expect(candidates[0]).toEqual([1, 3])
    expect(candidates[1]).toEqual([2, 3])
  })

  it('leave a rule with no match in any value without candidates', () => {
    const group = new GateGroup()
    group.add(0, regexGate(rx('etc/passwd'))!)
    group.seal()
    const candidates: (number[] | undefined)[] = []
    group.scan([['ARGS:a', 'nothing to see']], candidates)
    expect(candidates[0]).toBeUndefined()
  })

  it('are absent where a value without any literal may match, or the rule is not a plain @rx', () => {
    expect(regexGate(rx('^.*$'))).toBeUndefined()
    expect(regexGate(rx('^\\d*$'))).toBeUndefined()
    expect(
      regexGate(rx('evil', { operator: { name: 'rx', parameter: 'evil', negated: true } })),
    ).toBeUndefined()
    expect(regexGate(rx('%{tx.pattern}'))).toBeUndefined()
    expect(regexGate(rx('evil', { multiMatch: true }))).toBeUndefined()
    // Look-behind is hand-written in regex-dialect.ts, whose rewrite refuses it.
    expect(regexGate(rx('(?<!a)b'))).toBeUndefined()
    expect(regexGate(rx('evil'))).toBeDefined()
  })
})
