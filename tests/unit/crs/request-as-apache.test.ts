// What the OWASP ruleset's collections hold where Apache, yajl and libxml2 shape the request
// before ModSecurity's rules see it (found by a differential fuzz against the reference; the
// requests and the reference's answers are in tests/fixtures/crs/fuzz-*): the path phase 2
// reads, JSON keys and escapes, XML references, entities and encodings, MATCHED_VARS, the
// arguments limit, and REQUEST_BODY where the body's processor failed.
import { describe, expect, it } from 'vitest'
import { parseCookies, parseJson, parseXml } from '../../../src-main/engine/crs/request'
import { apachePath } from '../../../src-main/engine/crs/request-collections'
import { runOnDescription as run } from './programs'

describe('the path phase 2 reads', () => {
  it('is normalised and decoded once, as Apache leaves it', () => {
    expect(apachePath('/a/%253Cscript%253E')).toBe('/a/%3Cscript%3E')
    expect(apachePath('/a/%7euser/./b//c/../d')).toBe('/a/~user/b/d')
    expect(apachePath('/a/%2e%2e/b')).toBe('/b')
    expect(apachePath('/a/.')).toBe('/a/')
    expect(apachePath('/a/..')).toBe('/')
    expect(apachePath('/')).toBe('/')
  })

  it('is left as sent where Apache refuses it (no phase 2 follows)', () => {
    for (const path of ['/%2F', '/a/%00', '/../x', '/a/%zz', '/a/%4'])
      expect(apachePath(path), path).toBe(path)
  })

  it('is what REQUEST_FILENAME, REQUEST_BASENAME and REQUEST_URI hold in phase 2, not phase 1', () => {
    const program = `SecRule REQUEST_FILENAME "@streq /a/%253C.php" "id:1,phase:1,setvar:tx.anomaly_score_pl1=+1"
SecRule REQUEST_FILENAME "@streq /a/%3C.php" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+1"
SecRule REQUEST_BASENAME "@streq %3C.php" "id:3,phase:2,setvar:tx.anomaly_score_pl1=+1"
SecRule REQUEST_URI "@streq /a/%3C.php?q=%25" "id:4,phase:2,setvar:tx.anomaly_score_pl1=+1"
SecRule REQUEST_URI "@streq /a/%253C.php?q=%25" "id:5,phase:1,setvar:tx.anomaly_score_pl1=+1"`
    const result = run(program, { method: 'GET', url: '/a/%253C.php?q=%25', headers: {} })
    expect([...result.matches.keys()]).toEqual([1, 5, 2, 3, 4])
  })
})

describe('JSON bodies', () => {
  it('cut a key at a NUL (yajl copies it as a C string); values keep theirs', () => {
    expect(parseJson('{"a\\u0000<b>": "x\\u0000y"}').args).toEqual([['a', 'x\u0000y']])
  })

  it('write a lone high surrogate as ?, what follows it kept, and a pair as its code point', () => {
    expect(parseJson('{"s": "\\ud800z", "p": "\\ud83d\\ude00"}').args).toEqual([
      ['s', '?z'],
      ['p', '\u00f0\u009f\u0098\u0080'],
    ])
  })

  it('refuse a string whose bytes are not shaped as UTF-8, as yajl validates them', () => {
    // A lead byte with its continuation bytes passes, overlong forms too; anything else is an error.
    expect(parseJson('{"a": "\xc3\xa9", "b": "\xc0\xbc", "c": "\xf0\x9f\x98\x80"}')).toEqual({
      args: [
        ['a', '\xc3\xa9'],
        ['b', '\xc0\xbc'],
        ['c', '\xf0\x9f\x98\x80'],
      ],
      error: false,
    })
    for (const bad of ['\xff <script>', '\xc3 x', '\xe2\x82', '\xa9', '\xf8\x80\x80\x80\x80'])
      expect(parseJson(`{"a": "${bad}"}`), bad).toEqual({ args: [], error: true })
    expect(parseJson('{"\xff": "x"}').error).toBe(true)
  })
})

describe('XML bodies', () => {
  it('decode references, predefined and internal entities, and line ends, as libxml2 does', () => {
    const parsed = parseXml(
      '<!DOCTYPE r [<!ENTITY x "&lt;b&gt;"><!ENTITY y "&x;&x;">]>' +
        '<r a="1\t2 &x;">&lt;s&gt; &amp;lt; &#65;&#x42; &y; &unknown;\r\n</r>',
    )
    expect(parsed).toEqual({
      text: ['<s> &lt; AB <b><b> &unknown;\n'],
      attributes: ['1 2 <b>'],
      error: false,
    })
  })

  it('expand an entity where it is used: later entities, character references twice, external ones empty', () => {
    const parsed = parseXml(
      '<!DOCTYPE r [<!ENTITY e "&f;-&#38;lt;"><!ENTITY f "java.lang.Runtime">' +
        '<!ENTITY s SYSTEM "file:///etc/passwd"><!ENTITY p PUBLIC "-//x" "http://x/y">]>' +
        '<r a="&e;">&e; [&s;&p;]</r>',
    )
    expect(parsed).toEqual({
      text: ['java.lang.Runtime-< []'],
      attributes: ['java.lang.Runtime-<'],
      error: false,
    })
  })

  it('refuse an entity that refers to itself as a parse error', () => {
    expect(parseXml('<!DOCTYPE r [<!ENTITY a "&b;"><!ENTITY b "x&a;">]><r>&a;</r>').error).toBe(
      true,
    )
  })

  it('refuse entities that amplify the document (a billion laughs) as a parse error', () => {
    const a = 'a'.repeat(80)
    const level = (name: string, of: string) => `<!ENTITY ${name} "${`&${of};`.repeat(10)}">`
    const body = `<!DOCTYPE r [<!ENTITY a "${a}">${level('b', 'a')}${level('c', 'b')}${level('d', 'c')}]><r>&d;</r>`
    expect(parseXml(body).error).toBe(true)
    expect(parseXml(`<r>${'&amp;'.repeat(100)}</r>`).error).toBe(false)
    // Markup without text amplifies the work all the same.
    const markup = `<!ENTITY a "${'&#60;b/&#62;'.repeat(50)}">`
    const noText = `<!DOCTYPE r [${markup}${level('b', 'a')}${level('c', 'b')}${level('d', 'c')}${level('e', 'd')}]><r>&e;</r>`
    expect(parseXml(noText).error).toBe(true)
  })
})

describe('XML entities whose replacement text holds markup, as libxml2 parses it where used', () => {
  const doc = (subset: string, root: string) =>
    `<?xml version="1.0"?><!DOCTYPE r [${subset}]>${root}`

  it('give the text of the elements an entity holds, not their tags', () => {
    expect(
      parseXml(doc('<!ENTITY e "&#60;script&#62;alert(1)&#60;/script&#62;">', '<r>[&e;]</r>')),
    ).toEqual({ text: ['[alert(1)]'], attributes: [], error: false })
    // A reference the replacement text holds is read where the entity is used, markup and all.
    const nested = doc(
      '<!ENTITY e "&#60;b&#62;&f;&#60;/b&#62;"><!ENTITY f "&#60;i&#62;x&#60;/i&#62;&#60;![CDATA[<y>]]&#62;">',
      '<r>&e;</r>',
    )
    expect(parseXml(nested).text).toEqual(['x<y>'])
    // &lt; in an entity's value stays a reference until the entity is used: text, not markup.
    expect(parseXml(doc('<!ENTITY e "&lt;b&gt;">', '<r>&e;</r>')).text).toEqual(['<b>'])
  })

  it("give the content of the entity's own comments and processing instructions, not of those in its elements", () => {
    const subset =
      '<!ENTITY e "&#60;!--c--&#62;&#60;?pi p q?&#62;&#60;b&#62;&#60;!--x--&#62;t&#60;?pi y?&#62;&#60;/b&#62;">'
    expect(parseXml(doc(subset, '<r><!--z-->&e;</r>')).text).toEqual(['cp qt'])
  })

  it("leave the attributes of an entity's elements out of the document's", () => {
    expect(
      parseXml(doc(`<!ENTITY e "&#60;b c='2'/&#62;">`, '<r a="1">&e;</r>')).attributes,
    ).toEqual(['1'])
  })

  it('refuse an entity whose markup is not balanced within it, or with < in an attribute value', () => {
    for (const value of ['&#60;b&#62;', '&#60;/r&#62;&#60;r&#62;'])
      expect(parseXml(doc(`<!ENTITY e "${value}">`, '<r>&e;</r>')).error, value).toBe(true)
    expect(parseXml(doc('<!ENTITY e "&#60;b&#62;">', '<r>&e;</b></r>')).error).toBe(true)
    expect(parseXml(doc('<!ENTITY e "&#60;s&#62;">', '<r a="&e;"/>')).error).toBe(true)
    expect(parseXml(doc('<!ENTITY e "&lt;s&gt;">', '<r a="&e;"/>')).attributes).toEqual(['<s>'])
  })
})

describe('XML bodies as libxml2 reads their markup', () => {
  it('skip a UTF-8 byte order mark', () => {
    expect(parseXml('\xef\xbb\xbf<a>x</a>')).toEqual({ text: ['x'], attributes: [], error: false })
  })

  it('leave namespace declarations out of the attributes', () => {
    expect(parseXml('<a xmlns="urn:d" xmlns:x="urn:x" x:b="1" xmlnsy="2"><b>t</b></a>')).toEqual({
      text: ['t'],
      attributes: ['1', '2'],
      error: false,
    })
  })

  it('end a tag at the first > outside its quoted attribute values', () => {
    expect(parseXml(`<a b="x>&lt;s&gt;" c='>'>t</a>`)).toEqual({
      text: ['t'],
      attributes: ['x><s>', '>'],
      error: false,
    })
  })

  it('end a processing instruction at ?> and a DOCTYPE outside its literals', () => {
    expect(parseXml('<?pi x>y?><!DOCTYPE a SYSTEM "x>y"><a>t</a>').text).toEqual(['t'])
    expect(parseXml('<!DOCTYPE a [<!ENTITY e "]>">]><a>&e;</a>')).toEqual({
      text: [']>'],
      attributes: [],
      error: false,
    })
  })
})

describe('XML bodies in other encodings, converted to UTF-8 as libxml2 converts them', () => {
  const declared = (encoding: string, content: string) =>
    `<?xml version="1.0" encoding="${encoding}"?><a b="${content}">${content}</a>`
  const utf16 = (text: string, bigEndian: boolean) =>
    [...text].map((c) => (bigEndian ? `\x00${c}` : `${c}\x00`)).join('')

  it('read the declared single-byte encoding', () => {
    // windows-1252's 0x80 is the euro sign; ISO-8859-1's is a control; ISO-8859-15's 0xA4 the euro
    expect(parseXml(declared('windows-1252', 'x\x80\x93')).text).toEqual([
      'x\xe2\x82\xac\xe2\x80\x9c',
    ])
    expect(parseXml(declared('CP1252', '\xe3')).attributes).toEqual(['\xc3\xa3'])
    expect(parseXml(declared('ISO-8859-1', '\x80')).text).toEqual(['\xc2\x80'])
    expect(parseXml(declared('ISO-8859-15', '\xa4')).text).toEqual(['\xe2\x82\xac'])
    expect(parseXml(declared('iso-8859-2', '\xa1')).text).toEqual(['\xc4\x84'])
    // Cyrillic А in windows-1251 (and by its cp name), KOI8-R and IBM866
    expect(parseXml(declared('windows-1251', '\xc0')).text).toEqual(['\xd0\x90'])
    expect(parseXml(declared('cp1251', '\xc0')).text).toEqual(['\xd0\x90'])
    expect(parseXml(declared('KOI8-R', '\xe1')).text).toEqual(['\xd0\x90'])
    expect(parseXml(declared('IBM866', '\x80')).text).toEqual(['\xd0\x90'])
    // windows-1250's ‘ and ’, which CRS's 942431 counts among special characters
    expect(parseXml(declared('windows-1250', '\x91\x92')).text).toEqual([
      '\xe2\x80\x98\xe2\x80\x99',
    ])
  })

  it('read bytes as iconv does where its tables and TextDecoder differ', () => {
    // iconv keeps IBM866's 0x1A as ASCII's control and reads Macintosh's 0xC6 as Greek Δ
    expect(parseXml(declared('IBM866', 'a\x1a')).text).toEqual(['a\x1a'])
    expect(parseXml(declared('macintosh', '\xc6')).text).toEqual(['\xce\x94'])
  })

  it('refuse a byte the encoding has no character for', () => {
    expect(parseXml(declared('windows-1252', '\x81')).error).toBe(true)
    expect(parseXml(declared('ISO-8859-3', '\xa5')).error).toBe(true)
    // iconv has no character for windows-1250's 0x81 (TextDecoder reads it as the control U+0081)
    expect(parseXml(declared('windows-1250', '\x81')).error).toBe(true)
    expect(parseXml(declared('windows-1253', '\xaa')).error).toBe(true)
    expect(parseXml(declared('US-ASCII', '\xe9')).error).toBe(true)
    expect(parseXml(declared('ascii', 'e')).error).toBe(false)
  })

  it('heed a declaration after a UTF-8 byte order mark', () => {
    expect(parseXml(`\xef\xbb\xbf${declared('ISO-8859-1', '\xe9')}`).text).toEqual(['\xc3\xa9'])
  })

  it('read UTF-16 by its byte order mark or its first characters, whatever the declaration says', () => {
    const document = declared('windows-1252', '\xe9')
    expect(parseXml(`\xff\xfe${utf16(document, false)}`).text).toEqual(['\xc3\xa9'])
    expect(parseXml(`\xfe\xff${utf16(document, true)}`).text).toEqual(['\xc3\xa9'])
    expect(parseXml(utf16('<?xml version="1.0"?><a>t\r\n</a>', false)).text).toEqual(['t\n'])
    expect(parseXml(`\xff\xfe${utf16('<a>t</a>', false)}\x00`).error).toBe(true)
  })

  it('leave UTF-8 and encodings it does not know as the bytes are', () => {
    expect(parseXml(declared('UTF-8', '\xc3\xa9')).text).toEqual(['\xc3\xa9'])
    expect(parseXml(declared('Shift_JIS', '\x82\xa0')).text).toEqual(['\x82\xa0'])
  })
})

describe('Cookie headers', () => {
  it('split at ; or, when there is none and the first , is followed by a space, at ,', () => {
    // Apache joins repeated Cookie headers with ", " (modsecurity_tx_init, parse_cookies_v0).
    expect(parseCookies('a=1, b=2')).toEqual([
      ['a', '1'],
      ['b', '2'],
    ])
    expect(parseCookies('a=1,b=2, c=3')).toEqual([['a', '1,b=2, c=3']])
    expect(parseCookies('a=1, b=2; c=3')).toEqual([
      ['a', '1, b=2'],
      ['c', '3'],
    ])
  })
})

describe('collections ModSecurity bounds', () => {
  it('keep no more than 1,000 arguments, the query first', () => {
    const query = Array.from({ length: 1000 }, (_, i) => `p${i}=1`).join('&')
    const program = `SecRule ARGS "@contains <" "id:1,phase:2,setvar:tx.anomaly_score_pl1=+5"
SecRule &ARGS "@eq 1000" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+1"`
    const result = run(program, {
      method: 'POST',
      url: `/?${query}`,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'z=<script>',
    })
    expect([...result.matches.keys()]).toEqual([2])
  })

  it('give MATCHED_VARS values up to a NUL, as var_matched_vars_generate copies them', () => {
    // As CRS's 944120: a phrase in an argument, then a pattern over what matched.
    const program = `SecRule ARGS "@contains clone" "id:1,phase:2,chain"
  SecRule MATCHED_VARS "@contains builder" "setvar:tx.anomaly_score_pl1=+5"`
    const result = run(program, { method: 'GET', url: '/?a=clone%00builder', headers: {} })
    expect(result.matches.size).toBe(0)
  })

  it('show REQUEST_BODY when inspection is forced and the body processor failed', () => {
    const program = `SecAction "id:1,phase:1,ctl:forceRequestBodyVariable=On"
SecRule REQUEST_BODY "@contains junk" "id:2,phase:2,setvar:tx.anomaly_score_pl1=+5"`
    const json = { 'Content-Type': 'application/json' }
    const processor = `SecRule REQUEST_HEADERS:Content-Type "@rx ^application/json" "id:3,phase:1,ctl:requestBodyProcessor=JSON"\n`
    const failed = run(processor + program, {
      method: 'POST',
      url: '/',
      headers: json,
      body: '{"a": 1} junk',
    })
    expect([...failed.matches.keys()]).toEqual([2])
    const parsed = run(processor + program, {
      method: 'POST',
      url: '/',
      headers: json,
      body: '{"junk": 1}',
    })
    expect(parsed.matches.size).toBe(0)
  })
})
