// The HCL writer against hclwrite's own formatter (@cdktf/hcl-tools, as `terraform fmt` runs
// it) and HCL's parser (@cdktf/hcl2json): whatever the strings and keys, the text is already
// canonical and reads back as the values written.

import { format } from '@cdktf/hcl-tools'
import { parse } from '@cdktf/hcl2json'
import { describe, expect, it } from 'vitest'
import {
  attribute,
  block,
  comment,
  HclExpression,
  hclFile,
  HclMap,
} from '../../../src-main/bundles/hcl'

const AWKWARD = [
  '',
  'plain',
  'quote " and backslash \\ and \\"',
  'line\nbreak\ttab\rreturn',
  'template ${var.x} and %{ if true }directive%{ endif } and $${ already',
  'lone $ and % and { }',
  'control \u0001\u001f\u007f',
  'unicode é 漢字 🙂',
  'trailing backslash \\',
]

/** hcl2json answers a literal string with its template escapes ($${, %%{) as written. */
const literal = (text: string) => text.replace(/([$%])\1\{/g, '$1{')

describe('hclFile', () => {
  it('writes text that the formatter leaves as it is and that parses back', async () => {
    const text = hclFile([
      comment('a comment\nover two lines'),
      block(
        'resource',
        ['cloudflare_ruleset', 'example'],
        [
          attribute('short', 'a'),
          attribute('a_much_longer_name', 1),
          attribute('flag', false),
          attribute('nothing', null),
          attribute('reference', new HclExpression('cloudflare_ruleset.other.id')),
          attribute('empty_list', []),
          attribute('empty_object', {}),
          attribute('strings', AWKWARD),
          attribute('map', new HclMap({ '100015': 'disable', efb7b8c9: ['a', 'b'] })),
          attribute('rules', [
            { description: AWKWARD[2]!, enabled: true, 'not an identifier': 1 },
            { nested: { deeper: { list: [{ x: 1 }, { y: 'z' }] } } },
          ]),
          block('logging', [], [attribute('enabled', true)]),
          block('logging', [], [attribute('enabled', false)]),
        ],
      ),
      block('import', [], [attribute('to', new HclExpression('a.b')), attribute('id', 'x/y')]),
    ])
    expect(await format(text)).toBe(text)
    const parsed = (await parse('main.tf', text)) as Record<string, any>
    const [resource] = parsed.resource.cloudflare_ruleset.example
    expect(resource.strings.map(literal)).toEqual(AWKWARD)
    expect(resource).toMatchObject({
      short: 'a',
      a_much_longer_name: 1,
      flag: false,
      reference: '${cloudflare_ruleset.other.id}',
      empty_list: [],
      map: { '100015': 'disable', efb7b8c9: ['a', 'b'] },
      rules: [
        { enabled: true, 'not an identifier': 1 },
        { nested: { deeper: { list: [{ x: 1 }, { y: 'z' }] } } },
      ],
      logging: [{ enabled: true }, { enabled: false }],
    })
    expect(literal(resource.rules[0].description)).toBe(AWKWARD[2])
    expect(parsed.import).toEqual([{ to: '${a.b}', id: 'x/y' }])
  })
})
