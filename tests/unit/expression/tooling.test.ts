// Editor tooling: tokens for highlighting, completion at a cursor, diagnostics with spans.

import { describe, expect, it } from 'vitest'
import { completions, diagnostics, tokens } from '@shared/expression/tooling'

const kinds = (text: string) => tokens(text).map((t) => [t.text, t.kind])
const labels = (text: string, offset = text.length) =>
  completions(text, offset).items.map((i) => i.label)

describe('tokens', () => {
  it('classifies fields, functions, operators, keywords and literals', () => {
    expect(
      kinds(
        'not lower(http.host) matches "^a\\.b" and ip.src in {10.0.0.0/8 ::1} && cf.waf.score lt 0x10',
      ),
    ).toEqual([
      ['not', 'keyword'],
      ['lower', 'function'],
      ['(', 'punctuation'],
      ['http.host', 'field'],
      [')', 'punctuation'],
      ['matches', 'operator'],
      ['"^a\\.b"', 'regex'],
      ['and', 'keyword'],
      ['ip.src', 'field'],
      ['in', 'operator'],
      ['{', 'punctuation'],
      ['10.0.0.0/8', 'number'],
      ['::1', 'number'],
      ['}', 'punctuation'],
      ['&&', 'keyword'],
      ['cf.waf.score', 'field'],
      ['lt', 'operator'],
      ['0x10', 'number'],
    ])
  })

  it('handles raw strings, lists, indexes, strict wildcard, any() and unknown words', () => {
    expect(
      kinds(
        'any(http.request.headers["x"][*] strict wildcard r#"a"b"#) or ip.src in $cf.vpn or bogus',
      ),
    ).toEqual([
      ['any', 'keyword'],
      ['(', 'punctuation'],
      ['http.request.headers', 'field'],
      ['[', 'punctuation'],
      ['"x"', 'string'],
      [']', 'punctuation'],
      ['[', 'punctuation'],
      ['*', 'punctuation'],
      [']', 'punctuation'],
      ['strict wildcard', 'operator'],
      ['r#"a"b"#', 'string'],
      [')', 'punctuation'],
      ['or', 'keyword'],
      ['ip.src', 'field'],
      ['in', 'operator'],
      ['$cf.vpn', 'list'],
      ['or', 'keyword'],
      ['bogus', 'unknown'],
    ])
  })

  it('never throws and covers unterminated strings', () => {
    expect(kinds('http.host eq "abc')).toEqual([
      ['http.host', 'field'],
      ['eq', 'operator'],
      ['"abc', 'string'],
    ])
    expect(() => tokens('\u0000\uffff"\\')).not.toThrow()
  })
})

describe('completions', () => {
  it('offers fields, functions and keywords where a value starts', () => {
    const items = labels('http.req')
    expect(items).toContain('http.request.uri.path')
    expect(items).not.toContain('http.host')
    expect(labels('')).toEqual(expect.arrayContaining(['http.host', 'lower', 'any', 'not']))
    expect(labels('ssl and ')).toContain('ip.src')
    expect(labels('lower(')).toContain('http.host')
    expect(labels('not ')).toContain('cf.client.bot')
  })

  it('offers the operators defined for the type on the left', () => {
    expect(labels('http.host ')).toEqual([
      'eq',
      'ne',
      'contains',
      'matches',
      'wildcard',
      'strict wildcard',
      'in',
      'lt',
      'le',
      'gt',
      'ge',
    ])
    expect(labels('http.host con')).toEqual(['contains'])
    expect(labels('cf.waf.score ')).toContain('bitwise_and')
    expect(labels('cf.waf.score ')).not.toContain('contains')
    expect(labels('ip.src ')).toEqual(['eq', 'ne', 'in', 'lt', 'le', 'gt', 'ge'])
    expect(labels('http.request.headers ')).toEqual([])
  })

  it('offers logical operators after a complete condition', () => {
    expect(labels('ssl ')).toEqual(['and', 'or', 'xor'])
    expect(labels('http.host eq "a" o')).toEqual(['or'])
    expect(labels('(ssl ')).toEqual(['and', 'or', 'xor'])
  })

  it('replaces the word being typed and offers nothing inside a string', () => {
    const r = completions('ssl and http.ho', 15)
    expect([r.from, r.to]).toEqual([8, 15])
    expect(r.items.map((i) => i.label)).toEqual(['http.host'])
    expect(r.items[0]?.detail).toBe('Bytes')
    expect(labels('http.host eq "ht', 16)).toEqual([])
  })

  it('leaves out functions the phase does not allow', () => {
    expect(labels('')).not.toContain('regex_replace')
    expect(
      completions('', 0, { phase: 'http_request_firewall_managed' }).items.map((i) => i.label),
    ).not.toContain('cidr')
  })
})

describe('diagnostics', () => {
  it('has none for a valid or empty expression', () => {
    expect(diagnostics('http.host eq "a"')).toEqual([])
    expect(diagnostics('   ')).toEqual([])
  })

  it('gives the span, position, message and hint of an error', () => {
    expect(diagnostics('http.host eq "a" and http.hots eq "b"')).toEqual([
      {
        from: 21,
        to: 30,
        severity: 'error',
        message: 'unknown identifier',
        hint: 'did you mean http.host?',
        code: 'unknown-identifier',
        line: 1,
        column: 22,
      },
    ])
    const [d] = diagnostics('ip.src in {10.0.0.0/33}')
    expect([d?.from, d?.to, d?.message]).toEqual([
      11,
      22,
      'invalid length for network: Network length 33 is too long for Ipv4 (maximum: 32)',
    ])
  })

  it('clips a span to its line and reports later lines', () => {
    const [d] = diagnostics('ssl and\nnot cf.waf.score eq "x"\nand ssl')
    expect([d?.line, d?.column, d?.from, d?.to, d?.message]).toEqual([
      2,
      21,
      28,
      31,
      'expected digit',
    ])
  })

  it('reports deprecated fields as warnings', () => {
    expect(diagnostics('ip.geoip.asnum eq 13335')).toEqual([
      {
        from: 0,
        to: 14,
        severity: 'warning',
        message: 'ip.geoip.asnum is deprecated: use ip.src.asnum',
        line: 1,
        column: 1,
      },
    ])
  })
})
