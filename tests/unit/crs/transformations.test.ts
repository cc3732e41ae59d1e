// ModSecurity 2.9.7's transformations on binary strings: the examples of its reference manual
// (https://github.com/owasp-modsecurity/ModSecurity/wiki/Reference-Manual-%28v2.x%29#transformation-functions)
// and cases of the kind its own transformation tests check
// (https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master/tests/tfn), with the quirks of
// its C code that decide what CRS's rules see; and ModSecurity's own output for seeded values of
// every transformation (tests/fixtures/crs/transformations.jsonl, `npm run crs:reference`).
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { transformation } from '../../../src-main/engine/crs/transformations'
import type { TransformationVector } from '../../../scripts/crs-reference'

function t(name: string, value: string): string {
  const fn = transformation(name)
  if (fn === undefined) throw new Error(`no transformation ${name}`)
  return fn(value)
}

describe('names', () => {
  it('are case-insensitive, with both spellings of normalisePath; none and unknown names have none', () => {
    expect(transformation('urlDecodeUni')).toBe(transformation('urldecodeuni'))
    expect(t('normalisePath', 'a/./b')).toBe(t('normalizePath', 'a/./b'))
    expect(transformation('none')).toBeUndefined()
    expect(transformation('uppercase2')).toBeUndefined()
  })
})

describe('URL decoding', () => {
  it('urlDecode decodes %HH and +, and keeps invalid or cut escapes', () => {
    expect(t('urlDecode', 'Test+Case%20%41%2b')).toBe('Test Case A+')
    expect(t('urlDecode', '%+%4%%zz%4')).toBe('% %4%%zz%4')
    expect(t('urlDecode', '%u0041')).toBe('%u0041')
  })

  it('urlDecodeUni decodes %uHHHH by code page 20127, else the low byte, full width ASCII shifted', () => {
    expect(t('urlDecodeUni', '%u0041%U0042')).toBe('AB')
    // U+00E9 (é) maps to e in code page 20127; U+3002 (ideographic full stop) to '.'.
    expect(t('urlDecodeUni', '%u00e9%u3002')).toBe('e.')
    // No mapping: the low byte; in U+FF01..U+FF5E, plus 0x20.
    expect(t('urlDecodeUni', '%u1141%uff1c%uff00')).toBe('A<\x00')
    expect(t('urlDecodeUni', '%u12%uzzzz%41')).toBe('%u12%uzzzzA')
  })
})

describe('HTML, JavaScript, CSS and C decoding', () => {
  it('htmlEntityDecode decodes the five named entities and numeric ones, the semicolon optional', () => {
    expect(t('htmlEntityDecode', '&lt;a&GT;&quot;&amp;&nbsp;')).toBe('<a>"&\xa0')
    expect(t('htmlEntityDecode', '&#x41;&#66&#X43;&#0000068;')).toBe('ABCD')
    expect(t('htmlEntityDecode', '&eacute; &# &#x &#xg &')).toBe('&eacute; &# &#x &#xg &')
    // strtol() past LONG_MAX gives LONG_MAX, whose low byte is 0xff.
    expect(t('htmlEntityDecode', '&#99999999999999999999;')).toBe('\xff')
  })

  it('jsDecode decodes \\uHHHH (low byte), \\xHH, octal (one byte) and \\C', () => {
    expect(t('jsDecode', '\\u0041\\uff01\\x42\\103\\n\\q\\')).toBe('A!BC\nq\\')
    // Three octal digits only while they fit in a byte.
    expect(t('jsDecode', '\\477')).toBe('\x277')
  })

  it('cssDecode decodes 1-6 hex digits (last byte), eats one space after, drops \\ newline', () => {
    expect(t('cssDecode', 'j\\61 vascript')).toBe('javascript')
    expect(t('cssDecode', '\\0000ff41\\ff21\\1\\\nx\\z\\')).toBe('ÿ41A\x01xz')
    expect(t('cssDecode', '\\00ff21')).toBe('A')
  })

  it('escapeSeqDecode decodes C escapes; an unknown \\C is C', () => {
    expect(t('escapeSeqDecode', '\\a\\b\\f\\n\\r\\t\\v\\?\\\'\\"\\\\')).toBe(
      '\x07\x08\x0c\n\r\t\x0b?\'"\\',
    )
    expect(t('escapeSeqDecode', '\\0\\12\\123\\x00\\xff\\xg\\q')).toBe('\x00\nS\x00\xffxgq')
  })

  it('utf8toUnicode writes %uHHHH for UTF-8 sequences and keeps other bytes', () => {
    expect(t('utf8toUnicode', 'a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80')).toBe('a%u00e9%u20ac%u1f600')
    expect(t('utf8toUnicode', '\xff\x80')).toBe('\xff\x80')
    // An overlong sequence keeps its lead byte after the escape; a bad continuation drops the lead.
    expect(t('utf8toUnicode', '\xc0\xaf')).toBe('%u002f\xc0')
    expect(t('utf8toUnicode', '\xc3(')).toBe('(')
    expect(t('utf8toUnicode', 'a\x00b')).toBe('ab')
  })

  it('base64Decode decodes the leading base64 run; base64DecodeExt skips what is not base64', () => {
    expect(t('base64Decode', 'VGVzdENhc2U=')).toBe('TestCase')
    expect(t('base64Decode', 'VGVz dENhc2U=')).toBe('Tes')
    expect(t('base64DecodeExt', 'VGVz dENh\nc2U=')).toBe('TestCase')
    expect(t('base64DecodeExt', 'V=GVz')).toBe('')
  })

  it('sqlHexDecode decodes 0x runs of digit pairs; hexDecode and hexEncode convert pairs', () => {
    expect(t('sqlHexDecode', 'SELECT 0x414243,0x4')).toBe('SELECT ABC,0x4')
    // The byte after a run is copied unexamined.
    expect(t('sqlHexDecode', '0x410x42')).toBe('A0x42')
    expect(t('sqlHexDecode', '0x41004142')).toBe('A')
    expect(t('hexDecode', '414243')).toBe('ABC')
    expect(t('hexEncode', 'A\xff\x00')).toBe('41ff00')
  })
})

describe('whitespace, NULs, comments and command lines', () => {
  it('compressWhitespace and removeWhitespace treat C whitespace and NBSP as space', () => {
    expect(t('compressWhitespace', ' a \t\n\xa0b\x0b ')).toBe(' a b ')
    expect(t('removeWhitespace', ' a \t\n\xa0b\x0b ')).toBe('ab')
    expect(t('trim', ' \ta b\r\n')).toBe('a b')
    expect(t('trimLeft', ' a ')).toBe('a ')
    expect(t('trimRight', ' a ')).toBe(' a')
  })

  it('removeNulls and replaceNulls', () => {
    expect(t('removeNulls', 'a\x00b\x00')).toBe('ab')
    expect(t('replaceNulls', 'a\x00b')).toBe('a b')
  })

  it('replaceComments turns each C comment into one space, an unclosed one too', () => {
    expect(t('replaceComments', 'UNION/**/SELECT/* x */1/*')).toBe('UNION SELECT 1 ')
    expect(t('replaceComments', '*/ /')).toBe('*/ /')
  })

  it('removeComments drops C and HTML comments; -- or # ends the value', () => {
    expect(t('removeComments', 'a/* x */b<!-- y -->c')).toBe('abc')
    expect(t('removeComments', "1' OR 1=1-- rest")).toBe("1' OR 1=1")
    expect(t('removeComments', 'a#b')).toBe('a')
    // A comment that closes the value leaves ModSecurity's terminating NUL behind.
    expect(t('removeComments', 'a/**/')).toBe('a\x00')
    expect(t('removeCommentsChar', 'a/*b*/c<!--d-->e--f#g')).toBe('abcdefg')
  })

  it('cmdLine removes quotes, \\ and ^, squeezes separators, lower-cases', () => {
    expect(t('cmdLine', 'C^ommand /c "dir" , ;x\\y')).toBe('command/c dir xy')
    expect(t('cmdLine', 'W\'h\'o"a"mi ( x')).toBe('whoami( x')
    expect(t('cmdLine', 'ab\x00cd')).toBe('ab')
  })

  it('lowercase, length and sha1', () => {
    expect(t('lowercase', 'AbC\xc9')).toBe('abc\xc9')
    expect(t('length', 'abc\x00')).toBe('4')
    expect(t('sha1', 'abc')).toBe(createHash('sha1').update('abc').digest().toString('latin1'))
  })
})

describe('normalisePath', () => {
  it('removes self and back references and repeated slashes, never above the root', () => {
    expect(t('normalisePath', '/dir/foo//bar')).toBe('/dir/foo/bar')
    expect(t('normalisePath', 'dir/foo//bar/')).toBe('dir/foo/bar/')
    expect(t('normalisePath', '/a/b/../../../etc/./passwd')).toBe('/etc/passwd')
    expect(t('normalisePath', 'dir/../../foo')).toBe('../foo')
    expect(t('normalisePath', 'dir/./.././../../foo/bar/.')).toBe('../../foo/bar')
    expect(t('normalisePath', './..')).toBe('..')
    expect(t('normalisePath', '.')).toBe('')
    expect(t('normalisePath', '/a/b/..')).toBe('/a')
  })

  it('normalisePathWin treats backslashes as slashes', () => {
    expect(t('normalisePathWin', 'C:\\a\\..\\b\\\\c')).toBe('C:/b/c')
    expect(t('normalisePathWin', '..\\..\\boot.ini')).toBe('../../boot.ini')
  })
})

describe('ModSecurity 2.9.7 itself', () => {
  const vectors = readFileSync(
    resolve(import.meta.dirname, '../../fixtures/crs/transformations.jsonl'),
    'utf8',
  )
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TransformationVector)

  it('gives what these give on every vector of the golden file', () => {
    expect(vectors.length).toBeGreaterThan(2000)
    const differing = vectors.filter((v) => t(v.name, v.input) !== v.output)
    expect(differing.slice(0, 5)).toEqual([])
  })
})

describe('values left as they are', () => {
  // Each transformation returns a value it would not change without decoding it; these compare
  // that answer with the full decoding's, forced by a byte whose effect is known.
  const value = fc
    .array(fc.constantFrom('/', 'a', 'B', ' ', '\t', '\xa0', ':', '\xc3', '\xa9', '(', '-', '"'), {
      maxLength: 10,
    })
    .map((chars) => chars.join(''))

  it('cmdLine: a quote, which it removes, changes nothing', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(t('cmdLine', v)).toBe(t('cmdLine', `${v}"`))
      }),
    )
  })

  it('compressWhitespace: a tab after the value ends it with one space', () => {
    fc.assert(
      fc.property(value, (v) => {
        const compressed = t('compressWhitespace', v)
        expect(t('compressWhitespace', `${v}\t`)).toBe(
          compressed.endsWith(' ') ? compressed : `${compressed} `,
        )
      }),
    )
  })

  it('utf8toUnicode: a NUL, which it drops, changes nothing', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(t('utf8toUnicode', v)).toBe(t('utf8toUnicode', `${v}\0`))
      }),
    )
  })

  it('normalisePath: a leading self reference changes nothing', () => {
    fc.assert(
      fc.property(value, (v) => {
        fc.pre(!v.includes('//'))
        const self = v.startsWith('/') ? `/.${v}` : `./${v}`
        for (const name of ['normalisePath', 'normalisePathWin'])
          expect(t(name, v), name).toBe(t(name, self))
      }),
    )
  })
})
