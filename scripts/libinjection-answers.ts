// What ModSecurity 2.9.7's own libinjection answers, for tests/unit/crs/libinjection-sqli-crs.test.ts:
//
//   npx tsx scripts/libinjection-answers.ts
//
// (its extraction of rule 942100's values is exported for that test).
// Debian's mod_security2.so links libinjection 3.9.2 in and exports libinjection_sqli. This script
// loads that module into python3 (ctypes) beside a stub library, built here with cc, that defines
// the Apache and APR symbols the module names, since nothing of Apache runs: only libinjection is
// called. It asks it about
//   - the values rule 942100 (@detectSQLi) inspects in the CRS corpus and the benign corpus
//     (tests/fixtures/crs/*.ndjson): query and urlencoded body arguments and their names, JSON
//     string leaves, multipart fields, XML text, cookies and their names, User-Agent and Referer,
//     each as the rule's multiMatch passes it: as is and after each of t:utf8toUnicode,
//     t:urlDecodeUni and t:removeNulls that changes it (CRS's REQUEST-942 rules file);
//   - seeded random SQL-ish and binary inputs;
// and writes tests/fixtures/libinjection/sqli-modsecurity.json: each input and the fingerprint
// ModSecurity answered ('' when it is not SQLi). Needs libapache2-mod-security2, python3, cc, nm.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { format } from 'prettier'
import { transformation } from '../src-main/engine/crs/transformations'

const ROOT = resolve(import.meta.dirname, '..')
const MODULE = '/usr/lib/apache2/modules/mod_security2.so'
const CORPUS = ['crs-tests.ndjson', 'benign.ndjson'].map((f) => join(ROOT, 'tests/fixtures/crs', f))
const OUT = join(ROOT, 'tests/fixtures/libinjection/sqli-modsecurity.json')
const RANDOM_INPUTS = 6000
/** Longer values add size to the fixture and nothing the random inputs do not reach. */
const LONGEST = 2048

export interface CorpusRequest {
  uri: string
  headers: [string, string][]
  body: string
}

/** A corpus line's request from its exact bytes (`wire`), as binary strings. */
export function requestOf(line: string): CorpusRequest {
  const wire = Buffer.from((JSON.parse(line) as { wire: string }).wire, 'base64').toString('latin1')
  const split = wire.indexOf('\r\n\r\n')
  const [requestLine = '', ...headerLines] = wire
    .slice(0, split < 0 ? undefined : split)
    .split('\r\n')
  return {
    uri: requestLine.split(' ')[1] ?? '',
    headers: headerLines.map((h) => {
      const colon = h.indexOf(':')
      return [h.slice(0, colon), h.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '')]
    }),
    body: split < 0 ? '' : wire.slice(split + 4),
  }
}

/** ModSecurity's urldecode_nonstrict on argument names and values: `+` is a space. */
const decodeArgument = transformation('urlDecode')!
const MULTI_MATCH = ['utf8toUnicode', 'urlDecodeUni', 'removeNulls'].map((name) => {
  const t = transformation(name)
  if (!t) throw new Error(`no transformation ${name}`)
  return t
})

/** `&`-separated `name=value` pairs, both decoded (ModSecurity's parse_arguments). */
function argumentsOf(text: string): string[] {
  return text
    .split('&')
    .filter((part) => part !== '')
    .flatMap((part) => {
      const eq = part.indexOf('=')
      return eq < 0 ? [part] : [part.slice(0, eq), part.slice(eq + 1)]
    })
    .map((s) => decodeArgument(s))
}

/** Keys and string or number leaves of a JSON body, as binary strings. */
function jsonValues(body: string): string[] {
  const out: string[] = []
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(walk)
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        out.push(key)
        walk(inner)
      }
    } else if (value !== null && value !== undefined) out.push(String(value))
  }
  try {
    walk(JSON.parse(Buffer.from(body, 'latin1').toString('utf8')))
  } catch {
    return []
  }
  return out.map((s) => Buffer.from(s, 'utf8').toString('latin1'))
}

/** Field names and values of a multipart body's parts that are not files. */
function multipartValues(body: string, contentType: string): string[] {
  const boundary = /boundary=("?)([^";]+)\1/i.exec(contentType)?.[2]
  if (!boundary) return []
  return body.split(`--${boundary}`).flatMap((part) => {
    const split = part.indexOf('\r\n\r\n')
    if (split < 0) return []
    const head = part.slice(0, split)
    if (/filename=/i.test(head)) return []
    const name = /name="([^"]*)"/i.exec(head)?.[1]
    return [...(name === undefined ? [] : [name]), part.slice(split + 4).replace(/\r\n$/, '')]
  })
}

/** What rule 942100's targets hold for one request, before transformations. */
export function targetsOf(request: CorpusRequest): string[] {
  const header = (name: string) =>
    request.headers.filter(([n]) => n.toLowerCase() === name).map(([, v]) => v)
  const values: string[] = [...header('user-agent'), ...header('referer')]
  const query = request.uri.indexOf('?')
  if (query >= 0) values.push(...argumentsOf(request.uri.slice(query + 1)))
  for (const cookie of header('cookie').join('; ').split(';')) {
    const trimmed = cookie.replace(/^[ \t]+/, '')
    const eq = trimmed.indexOf('=')
    const name = eq < 0 ? trimmed : trimmed.slice(0, eq)
    values.push(name)
    if (eq >= 0 && !/__utm/.test(name)) values.push(trimmed.slice(eq + 1))
  }
  const body = request.body
  const contentType = header('content-type')[0] ?? ''
  if (/^application\/x-www-form-urlencoded/i.test(contentType)) values.push(...argumentsOf(body))
  else if (/^application\/json/i.test(contentType)) values.push(...jsonValues(body))
  else if (/^multipart\/form-data/i.test(contentType)) {
    values.push(...multipartValues(body, contentType))
  } else if (/^(?:application(?:\/soap\+|\/)|text\/)xml/i.test(contentType)) {
    values.push(body.replace(/<[^>]*>/g, ''))
  }
  return values.filter((v) => v !== '')
}

/** A value as multiMatch hands it to the operator: as is, then after each changing step. */
export function multiMatch(value: string): string[] {
  const passed = [value]
  let current = value
  for (const step of MULTI_MATCH) {
    const next = step(current)
    if (next !== current) passed.push(next)
    current = next
  }
  return passed
}

const FRAGMENTS = [
  ...["'", '"', '`', '(', ')', ',', ';', '{', '}', '[', ']', '\\', '\\N', '#', '--', '-- ', '-'],
  ...['/*', '*/', '/*!', '/', '*', '+', '~', '!', '!!', '!=', '<=>', '::', ':', '=', '||', '&&'],
  ...['@', '@@', '$', '$$', '$a$', '$1,0', '$.', '.', '0x', '0x1f', '0b01', '1', '1.5', '1e'],
  ...['1e5', '.5', '1f', "x'1f'", "b'01'", "N'", "E'", "q'[", "]'", "nq'(", "U&'", ' ', '\n'],
  ...['\u00a0', '\u0000', '\u00ff', 'select', 'UNION ALL', 'from', 'or', 'and', 'not in', 'like'],
  ...['into outfile', 'user', 'if', 'collate', 'utf8_general_ci', 'sp_password', 'admin', 'x'],
  ...['union', 'where', 'null', 'sleep', 'benchmark', 'char', 'concat', 'waitfor', 'delay', '17'],
]

/** Seeded inputs: fragments, spaces and single bytes (mulberry32, so every run is the same). */
function randomInputs(count: number): string[] {
  let seed = 18
  const next = (n: number) => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), seed | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) % n
  }
  return Array.from({ length: count }, () => {
    let input = ''
    for (let i = 1 + next(16); i > 0; i--) {
      const kind = next(10)
      if (kind < 7) input += FRAGMENTS[next(FRAGMENTS.length)]! + (next(2) ? ' ' : '')
      else if (kind < 9) input += String.fromCharCode(next(256))
      else input += ' '
    }
    return input
  })
}

const ORACLE = `
import ctypes, json, os, sys
ctypes.CDLL(sys.argv[1], mode=os.RTLD_GLOBAL)
lib = ctypes.CDLL(sys.argv[2], mode=os.RTLD_LAZY | os.RTLD_GLOBAL)
lib.libinjection_version.restype = ctypes.c_char_p
fingerprint = ctypes.create_string_buffer(16)
answers = []
for line in sys.stdin:
    value = json.loads(line).encode('latin1')
    sqli = lib.libinjection_sqli(value, len(value), fingerprint)
    answers.append(fingerprint.value.decode('latin1') if sqli else '')
json.dump({'version': lib.libinjection_version().decode(), 'answers': answers}, sys.stdout)
`

/** ModSecurity's answers for `inputs`, and the libinjection version it reports. */
function askModSecurity(inputs: string[]): { version: string; answers: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'libinjection-'))
  try {
    const undefinedSymbols = execFileSync('nm', ['-D', '--undefined-only', MODULE], {
      encoding: 'utf8',
    })
      .split('\n')
      .map((line) => line.trim().split(/\s+/).pop() ?? '')
      .filter((name) => /^[A-Za-z][\w]*$/.test(name))
    writeFileSync(join(dir, 'stub.c'), undefinedSymbols.map((s) => `char ${s}[64];`).join('\n'))
    execFileSync('cc', ['-shared', '-fPIC', '-o', join(dir, 'stub.so'), join(dir, 'stub.c')])
    writeFileSync(join(dir, 'oracle.py'), ORACLE)
    const output = execFileSync('python3', [join(dir, 'oracle.py'), join(dir, 'stub.so'), MODULE], {
      input: inputs.map((s) => JSON.stringify(s)).join('\n') + '\n',
      maxBuffer: 1 << 30,
    })
    return JSON.parse(output.toString('utf8')) as { version: string; answers: string[] }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main(): Promise<void> {
  const corpus = new Set<string>()
  for (const file of CORPUS) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      for (const target of targetsOf(requestOf(line))) {
        for (const value of multiMatch(target)) if (value.length <= LONGEST) corpus.add(value)
      }
    }
  }
  const random = randomInputs(RANDOM_INPUTS).filter((input) => !corpus.has(input))
  const inputs = [...corpus, ...new Set(random)]
  const { version, answers } = askModSecurity(inputs)
  if (version !== '3.9.2') throw new Error(`ModSecurity's libinjection is ${version}, not 3.9.2`)
  const fixture = {
    notice:
      'Written by scripts/libinjection-answers.ts: libinjection_sqli of ModSecurity 2.9.7 (Debian, libinjection 3.9.2) on the values rule 942100 inspects in tests/fixtures/crs (converted from the OWASP Core Rule Set 3.3.4 regression tests, Apache-2.0, see tests/fixtures/crs/LICENSE, and the benign corpus) and on seeded random inputs. Each entry: the input (a binary string) and the fingerprint, empty when not SQLi.',
    corpusValues: corpus.size,
    answers: inputs.map((input, i) => [input, answers[i]]),
  }
  writeFileSync(OUT, await format(JSON.stringify(fixture), { parser: 'json', printWidth: 100 }))
  const sqli = answers.filter((a) => a !== '').length
  console.log(`${inputs.length} inputs (${corpus.size} from the corpora), ${sqli} SQLi`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main()
}
