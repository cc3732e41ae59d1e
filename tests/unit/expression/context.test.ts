// requestContext(): every field derived from a plain request description
// (docs/vendor-behaviour.md#fields, docs/vendor-behaviour.md#deriving-fields-from-a-request), and
// createContext() / createList().

import { describe, expect, it } from 'vitest'
import {
  bytesToText,
  compile,
  compileCredentialExpression,
  compileValue,
  createContext,
  createList,
  formatIp,
  normalizePath,
  requestContext,
  utf8Bytes,
  type EvaluationContext,
  type IpAddress,
  type RequestDescription,
  type Value,
} from '@shared/expression'

const field = (ctx: EvaluationContext, name: string): Value | undefined => ctx.fields[name]
const text = (ctx: EvaluationContext, name: string): string | undefined => {
  const v = field(ctx, name)
  return typeof v === 'string' ? bytesToText(v) : undefined
}
const matches = (expr: string, request: RequestDescription) =>
  compile(expr).evaluate(requestContext(request))

describe('fields built on first read', () => {
  const ctx = requestContext({
    method: 'POST',
    url: '/a/./b?x=1&y=2',
    headers: {
      Cookie: 'c=1',
      'Accept-Language': 'fr;q=0.5, en',
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: 'f=1&g=2',
  })

  it('are kept: a second read gives the same value', () => {
    const lazy = [
      'http.request.headers',
      'http.request.uri.args',
      'http.request.uri.args.names',
      'http.request.cookies',
      'http.request.accepted_languages',
      'http.request.body.form',
      'http.request.body.form.values',
      'http.request.body.multipart',
      'http.request.body.multipart.filenames',
    ]
    for (const name of lazy) expect(field(ctx, name), name).toBe(field(ctx, name))
  })

  it('share one set of arguments between the raw and the normalized URI', () => {
    expect(field(ctx, 'raw.http.request.uri.args')).toBe(field(ctx, 'http.request.uri.args'))
    expect(field(ctx, 'raw.http.request.uri.args.values')).toBe(
      field(ctx, 'http.request.uri.args.values'),
    )
    expect(text(ctx, 'http.request.uri')).toBe('/a/b?x=1&y=2')
    expect(text(ctx, 'raw.http.request.uri')).toBe('/a/./b?x=1&y=2')
  })
})

describe('URL fields', () => {
  const req: RequestDescription = {
    method: 'get',
    url: 'https://www.example.com/articles/Index.HTML?section=539061&expand=comments#top',
  }
  const ctx = requestContext(req)

  it('splits path and query, keeps the fragment out', () => {
    expect(text(ctx, 'http.request.method')).toBe('GET')
    expect(text(ctx, 'http.request.uri.path')).toBe('/articles/Index.HTML')
    expect(text(ctx, 'http.request.uri.query')).toBe('section=539061&expand=comments')
    expect(text(ctx, 'http.request.uri')).toBe(
      '/articles/Index.HTML?section=539061&expand=comments',
    )
    expect(text(ctx, 'http.request.full_uri')).toBe(
      'https://www.example.com/articles/Index.HTML?section=539061&expand=comments',
    )
    expect(text(ctx, 'http.host')).toBe('www.example.com')
    expect(field(ctx, 'ssl')).toBe(true)
  })

  it('lower-cases the path extension of the last segment', () => {
    const ext = (path: string) =>
      text(requestContext({ method: 'GET', url: path }), 'http.request.uri.path.extension')
    expect(ext('/foo')).toBe('')
    expect(ext('/foo.mp3')).toBe('mp3')
    expect(ext('/.mp3')).toBe('')
    expect(ext('/.foo.mp3')).toBe('mp3')
    expect(ext('/foo.tar.bz2')).toBe('bz2')
    expect(ext('/foo.')).toBe('')
    expect(ext('/foo.MP3')).toBe('mp3')
    expect(ext('/a.b/c')).toBe('')
  })

  it('normalizes the path (the vendor mode by default) and keeps the raw one', () => {
    const n = (url: string, mode?: 'cloudflare' | 'rfc3986') =>
      text(
        requestContext({ method: 'GET', url }, mode ? { normalization: mode } : {}),
        'http.request.uri.path',
      )
    expect(n('/%68ello')).toBe('/hello')
    expect(n('/%68ello//pa\\th', 'rfc3986')).toBe('/hello//pa%5Cth')
    expect(n('/%68ello//pa\\th')).toBe('/hello/pa/th')
    expect(n('/hello//../path', 'rfc3986')).toBe('/hello/path')
    expect(n('/hello//../path')).toBe('/path')
    expect(n('/hello/\\../path', 'rfc3986')).toBe('/hello/%5C../path')
    expect(n('/hello/\\../path')).toBe('/path')
    expect(n('/a/%2e%2E/b')).toBe('/b')
    expect(n('/a%2fb%7e')).toBe('/a%2Fb~')
    expect(n('/caf\u00e9 x')).toBe('/caf%C3%A9%20x')
    expect(n('/100%')).toBe('/100%25')
    expect(n('')).toBe('/')
    const ctx = requestContext({ method: 'GET', url: '/%68ello//x?q=%41' })
    expect(text(ctx, 'raw.http.request.uri.path')).toBe('/%68ello//x')
    expect(text(ctx, 'raw.http.request.uri')).toBe('/%68ello//x?q=%41')
    expect(text(ctx, 'http.request.uri')).toBe('/hello/x?q=%41')
    expect(normalizePath('/a/./b/../c', 'none')).toBe('/a/./b/../c')
  })

  it('splits query arguments without decoding them, in request order', () => {
    const ctx = requestContext({ method: 'GET', url: '/s?search=red+apples&a=%41&flag&a=2&&x=1=2' })
    const args = field(ctx, 'http.request.uri.args') as ReadonlyMap<string, string[]>
    expect([...args.keys()]).toEqual(['a', 'flag', 'search', 'x'])
    expect(args.get('search')).toEqual(['red+apples'])
    expect(args.get('a')).toEqual(['%41', '2'])
    expect(args.get('flag')).toEqual([''])
    expect(args.get('x')).toEqual(['1=2'])
    expect(field(ctx, 'http.request.uri.args.names')).toEqual(['search', 'a', 'flag', 'a', 'x'])
    expect(field(ctx, 'http.request.uri.args.values')).toEqual([
      'red+apples',
      '%41',
      '',
      '2',
      '1=2',
    ])
    expect(
      compile('any(url_decode(http.request.uri.args.values[*])[*] eq "red apples")').evaluate(ctx),
    ).toBe(true)
  })

  it('takes the host from the Host header of an origin-form URL, and the scheme from X-Forwarded-Proto', () => {
    const ctx = requestContext({
      method: 'GET',
      url: '/x',
      headers: { Host: 'shop.example', 'X-Forwarded-Proto': 'https' },
    })
    expect(text(ctx, 'http.request.full_uri')).toBe('https://shop.example/x')
    expect(field(ctx, 'ssl')).toBe(true)
    expect(field(requestContext({ method: 'GET', url: '/x' }), 'ssl')).toBe(false)
  })
})

describe('headers', () => {
  const ctx = requestContext({
    method: 'GET',
    url: '/',
    headers: {
      'User-Agent': 'Mozilla/5.0',
      'X-Multi': ['one', ' Two '],
      ACCEPT: 'text/html',
      referer: 'https://ref.example/',
    },
  })

  it('keys the map by lower-cased name, keeping values as received and in order', () => {
    const headers = field(ctx, 'http.request.headers') as ReadonlyMap<string, string[]>
    expect([...headers.keys()]).toEqual(['accept', 'referer', 'user-agent', 'x-multi'])
    expect(headers.get('x-multi')).toEqual(['one', ' Two '])
    expect(compile('http.request.headers["x-multi"][1] eq " Two "').evaluate(ctx)).toBe(true)
    expect(compile('http.request.headers["X-Multi"][0] eq "one"').evaluate(ctx)).toBe(false)
  })

  it('keeps names in original case, aligned with values', () => {
    expect(field(ctx, 'http.request.headers.names')).toEqual([
      'User-Agent',
      'X-Multi',
      'X-Multi',
      'ACCEPT',
      'referer',
    ])
    expect(field(ctx, 'http.request.headers.values')).toEqual([
      'Mozilla/5.0',
      'one',
      ' Two ',
      'text/html',
      'https://ref.example/',
    ])
  })

  it('fills the well-known header fields; absent headers are missing', () => {
    expect(text(ctx, 'http.user_agent')).toBe('Mozilla/5.0')
    expect(text(ctx, 'http.referer')).toBe('https://ref.example/')
    expect(field(ctx, 'http.cookie')).toBeUndefined()
    expect(field(ctx, 'http.x_forwarded_for')).toBeUndefined()
    expect(compile('http.x_forwarded_for ne "1.2.3.4"').evaluate(ctx)).toBe(false)
  })

  it('encodes non-ASCII header values as UTF-8', () => {
    const c = requestContext({ method: 'GET', url: '/', headers: { 'X-Name': 'Zoë' } })
    expect(compile('len(http.request.headers["x-name"][0]) eq 4').evaluate(c)).toBe(true)
    expect(compile('http.request.headers["x-name"][0] eq "Zoë"').evaluate(c)).toBe(true)
  })
})

describe('accepted languages', () => {
  const languages = (header?: string) =>
    field(
      requestContext({
        method: 'GET',
        url: '/',
        ...(header === undefined ? {} : { headers: { 'Accept-Language': header } }),
      }),
      'http.request.accepted_languages',
    )

  it('lists the tags by quality, equal qualities in header order, without * and empty entries', () => {
    expect(languages()).toEqual([])
    expect(languages('')).toEqual([])
    expect(languages('en-US, en')).toEqual(['en-US', 'en'])
    expect(languages('fr;q=0.5, *;q=0.1, de-CH , en;q=0.9,, it;q=0.5')).toEqual([
      'de-CH',
      'en',
      'fr',
      'it',
    ])
    // the first q parameter counts; other parameters are ignored
    expect(languages('a;level=1;q=0.2;q=0.9, b ; q = 0.3, c;q=1.0')).toEqual(['c', 'b', 'a'])
    expect(languages('x;q=0.8.1, y;q=0.1, z')).toEqual(['z', 'y', 'x'])
  })
})

describe('cookies', () => {
  const ctx = requestContext({
    method: 'GET',
    url: '/',
    headers: { Cookie: ['session=abc%20def; theme=dark', 'a%20b=1; session=2; lonely'] },
  })

  it('parses the Cookie headers, URL-decoding names and merging repeated names', () => {
    const cookies = field(ctx, 'http.request.cookies') as ReadonlyMap<string, string[]>
    expect([...cookies.keys()]).toEqual(['a b', 'lonely', 'session', 'theme'])
    expect(cookies.get('session')).toEqual(['abc%20def', '2'])
    expect(cookies.get('lonely')).toEqual([''])
    expect(text(ctx, 'http.cookie')).toBe(
      'session=abc%20def; theme=dark; a%20b=1; session=2; lonely',
    )
    expect(compile('http.request.cookies["theme"][0] eq "dark"').evaluate(ctx)).toBe(true)
    expect(compile('any(http.request.cookies["session"][*] eq "2")').evaluate(ctx)).toBe(true)
  })
})

describe('bodies', () => {
  it('parses an application/x-www-form-urlencoded body, undecoded', () => {
    const ctx = requestContext({
      method: 'POST',
      url: '/wp-login.php',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded; charset=UTF-8' },
      body: 'log=admin%40example.com&pwd=s3cr%26t&remember=',
    })
    expect(text(ctx, 'http.request.body.raw')).toBe(
      'log=admin%40example.com&pwd=s3cr%26t&remember=',
    )
    expect(field(ctx, 'http.request.body.form.names')).toEqual(['log', 'pwd', 'remember'])
    expect(compile('http.request.body.form["log"][0] eq "admin%40example.com"').evaluate(ctx)).toBe(
      true,
    )
    expect(
      bytesToText(
        compileCredentialExpression('url_decode(http.request.body.form["pwd"][0])').evaluate(
          ctx,
        ) as string,
      ),
    ).toBe('s3cr&t')
  })

  it('parses no form for other content types', () => {
    const ctx = requestContext({
      method: 'POST',
      url: '/',
      headers: { 'content-type': 'text/plain' },
      body: 'a=1',
    })
    expect((field(ctx, 'http.request.body.form') as ReadonlyMap<string, unknown>).size).toBe(0)
  })

  it('reads JSON bodies with lookup_json_string / lookup_json_integer', () => {
    const ctx = requestContext({
      method: 'POST',
      url: '/api/login',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        email: 'CF_EXPOSED_USERNAME@example.com',
        password: 'CF_EXPOSED_PASSWORD',
        n: 7,
        nested: { list: ['x', { id: 9 }] },
      }),
    })
    expect(text(ctx, 'http.request.body.mime')).toBe('application/json')
    const email = compileCredentialExpression(
      'lookup_json_string(http.request.body.raw, "email")',
    ).evaluate(ctx)
    expect(bytesToText(email as string)).toBe('CF_EXPOSED_USERNAME@example.com')
    expect(compileValue('lookup_json_integer(http.request.body.raw, "n")').evaluate(ctx)).toBe(7)
    expect(
      compileValue(
        'lookup_json_integer(http.request.body.raw, "nested", "list", 1, "id")',
      ).evaluate(ctx),
    ).toBe(9)
    expect(
      compile('lookup_json_string(http.request.body.raw, "nested", "list", 0) eq "x"').evaluate(
        ctx,
      ),
    ).toBe(true)
  })

  it('truncates the inspected body at the limit and reports the full size', () => {
    const body = 'x'.repeat(200)
    const ctx = requestContext({ method: 'POST', url: '/', body }, { bodyLimit: 128 })
    expect((field(ctx, 'http.request.body.raw') as string).length).toBe(128)
    expect(field(ctx, 'http.request.body.size')).toBe(200)
    expect(field(ctx, 'http.request.body.truncated')).toBe(true)
    const small = requestContext({ method: 'POST', url: '/', body: 'abc' })
    expect(field(small, 'http.request.body.truncated')).toBe(false)
  })

  it('takes bytes bodies as they are and sniffs their type', () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0xff])
    const ctx = requestContext({ method: 'POST', url: '/upload', body: png })
    expect(text(ctx, 'http.request.body.mime')).toBe('image/png')
    expect(field(ctx, 'http.request.body.size')).toBe(12)
    expect(compile('http.request.body.raw contains "\\xff"').evaluate(ctx)).toBe(true)
    expect(
      text(
        requestContext({ method: 'POST', url: '/', body: '%PDF-1.7' }),
        'http.request.body.mime',
      ),
    ).toBe('application/pdf')
    expect(
      text(requestContext({ method: 'POST', url: '/', body: 'hello' }), 'http.request.body.mime'),
    ).toBe('text/plain')
  })

  it('parses multipart form bodies', () => {
    const body = [
      '--XyZ',
      'Content-Disposition: form-data; name="title"',
      '',
      'hello',
      '--XyZ',
      'Content-Disposition: form-data; name="file"; filename="shell.php"',
      'Content-Type: application/x-php',
      '',
      '<?php system($_GET["c"]); ?>',
      '--XyZ--',
      '',
    ].join('\r\n')
    const ctx = requestContext({
      method: 'POST',
      url: '/up',
      headers: { 'Content-Type': 'multipart/form-data; boundary=XyZ' },
      body,
    })
    expect(compile('http.request.body.multipart["title"][0] eq "hello"').evaluate(ctx)).toBe(true)
    expect(
      compile('any(http.request.body.multipart.filenames[*][*] matches "\\.php$")').evaluate(ctx),
    ).toBe(true)
    expect(
      compile(
        'any(http.request.body.multipart.content_types[*][*] eq "application/x-php")',
      ).evaluate(ctx),
    ).toBe(true)
  })
})

describe('client and scores', () => {
  it('parses the client address and geo data, with the deprecated aliases', () => {
    const ctx = requestContext({
      method: 'GET',
      url: '/',
      ip: '2001:DB8::1',
      country: 'DE',
      asn: 13335,
      continent: 'EU',
    })
    expect(formatIp(field(ctx, 'ip.src') as IpAddress)).toBe('2001:db8::1')
    expect(text(ctx, 'ip.src.country')).toBe('DE')
    expect(text(ctx, 'ip.geoip.country')).toBe('DE')
    expect(field(ctx, 'ip.src.asnum')).toBe(13335)
    expect(field(ctx, 'ip.geoip.asnum')).toBe(13335)
    expect(
      matches('ip.src in {2001:db8::/32} and ip.src.country eq "DE"', {
        method: 'GET',
        url: '/',
        ip: '2001:db8::1',
        country: 'DE',
      }),
    ).toBe(true)
  })

  it('accepts IPv4 addresses in forms the strict parser refuses, and warns on garbage', () => {
    const ctx = requestContext({ method: 'GET', url: '/', ip: '::ffff:192.0.2.1' })
    expect(formatIp(field(ctx, 'ip.src') as IpAddress)).toBe('::ffff:192.0.2.1')
    const warnings: string[] = []
    const bad = requestContext(
      { method: 'GET', url: '/', ip: 'not-an-ip' },
      { warn: (m) => warnings.push(m) },
    )
    expect(field(bad, 'ip.src')).toBeUndefined()
    expect(warnings).toHaveLength(1)
  })

  it('defaults the scores as the vendor reports an unscored request', () => {
    const ctx = requestContext({ method: 'GET', url: '/' })
    expect(field(ctx, 'cf.waf.score')).toBe(100)
    expect(field(ctx, 'cf.waf.score.sqli')).toBe(100)
    expect(field(ctx, 'cf.threat_score')).toBe(0)
    expect(field(ctx, 'cf.bot_management.score')).toBeUndefined()
    expect(field(ctx, 'cf.client.bot')).toBe(false)
    expect(text(ctx, 'cf.waf.score.class')).toBe('unscored')
  })

  it('takes the scores it is given', () => {
    const req: RequestDescription = {
      method: 'GET',
      url: '/',
      botScore: 3,
      threatScore: 12,
      wafScores: { score: 15, sqli: 5, xss: 90 },
      verifiedBot: true,
    }
    const ctx = requestContext(req)
    expect(field(ctx, 'cf.bot_management.score')).toBe(3)
    expect(field(ctx, 'cf.waf.score.sqli')).toBe(5)
    expect(field(ctx, 'cf.waf.score.rce')).toBe(100)
    expect(text(ctx, 'cf.waf.score.class')).toBe('attack')
    expect(
      matches('cf.waf.score.sqli lt 20 and cf.client.bot and cf.threat_score gt 10', req),
    ).toBe(true)
  })
})

describe('createContext', () => {
  it('converts plain values by field type', () => {
    const ctx = createContext({
      'http.host': 'Example.COM',
      'ip.src': '192.0.2.1',
      'cf.waf.score': 50,
      ssl: true,
      'http.request.headers': { 'x-a': ['1', '2'] },
      'http.request.headers.names': ['X-A'],
    })
    expect(
      compile(
        'lower(http.host) eq "example.com" and ip.src eq 192.0.2.1 and cf.waf.score eq 50 and ssl',
      ).evaluate(ctx),
    ).toBe(true)
    expect(compile('http.request.headers["x-a"][1] eq "2"').evaluate(ctx)).toBe(true)
  })

  it('rejects unknown fields and values of the wrong type', () => {
    expect(() => createContext({ 'no.such.field': 1 })).toThrow(/unknown field no\.such\.field/)
    expect(() => createContext({ 'cf.waf.score': '10' })).toThrow(
      'cf.waf.score: expected value of type Int, but got string',
    )
    expect(() => createContext({ 'ip.src': 'nope' })).toThrow(/expected value of type Ip/)
    expect(() => createContext({ 'http.request.headers': { a: 'x' } })).toThrow(
      /http\.request\.headers\["a"\]: expected value of type Array<Bytes>/,
    )
  })

  it('encodes text as UTF-8 bytes', () => {
    expect(createContext({ 'http.host': 'é' }).fields['http.host']).toBe(utf8Bytes('é'))
  })
})

describe('createList', () => {
  it('matches IP lists by address, CIDR and range', () => {
    const list = createList('ip', [
      '192.0.2.1',
      '10.0.0.0/8',
      '2001:db8::/32',
      '198.51.100.10..198.51.100.20',
    ])
    const has = (ip: string) =>
      compile('ip.src in $l').evaluate(createContext({ 'ip.src': ip }, { lists: { l: list } }))
    expect(has('192.0.2.1')).toBe(true)
    expect(has('10.200.1.1')).toBe(true)
    expect(has('2001:db8:ffff::1')).toBe(true)
    expect(has('198.51.100.15')).toBe(true)
    expect(has('198.51.100.21')).toBe(false)
    expect(has('11.0.0.1')).toBe(false)
  })

  it('treats an unknown list as empty and says so', () => {
    const notes: string[] = []
    const ctx = createContext({ 'ip.src': '192.0.2.1' }, { warn: (m) => notes.push(m) })
    expect(compile('ip.src in $nowhere').evaluate(ctx)).toBe(false)
    expect(notes).toEqual(['unknown list $nowhere: treated as empty'])
  })
})
