// The golden files of the OWASP Core Rule Set agreement test (issue 18): the CRS corpus run through
// the engine that defines the rules' meaning, ModSecurity 2.9.7 with CRS 3.3.4 in Apache 2.4, all
// from Debian (apt-get install apache2 libapache2-mod-security2 modsecurity-crs; run as root, as
// Apache drops to www-data).
//
//   npm run crs:reference [-- --corpus DIR] [--levels 1,2,3,4] [--concurrency 4]
//
// For each paranoia level it starts Apache on a free loopback port in DetectionOnly mode with
// anomaly scoring (CRS's crs-setup.conf plus the level, inbound threshold 5), sends each corpus
// request's exact wire bytes on a connection of its own (as CRS's ftw runner does), reads the
// score headers that a rule after REQUEST-949 sets, joins ModSecurity's JSON audit log by unique
// id, and writes tests/fixtures/crs/golden-pl<N>.jsonl: per request its id, HTTP status, inbound
// anomaly score, per-level scores, the matched scoring rules' ids (sorted, once each),
// ModSecurity's own time for phases 1 and 2 in microseconds (the audit log's stopwatch) and, where
// the audit log cannot give the rules for sure, why (`rules_unreliable`).
// The corpus is read from tests/fixtures/crs/ unless --corpus names another folder.
//
// It also runs seeded values (--vectors per transformation or operator, default 100; 0 for none)
// through each of ModSecurity's transformations that the workbench implements and through CRS's
// operators, in Apache with ModSecurity and one rule each, and writes
// tests/fixtures/crs/transformations.jsonl (name, input, ModSecurity's output) and operators.jsonl
// (operator, parameter, input, whether it matched and its TX.0).
import { spawnSync } from 'node:child_process'
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const ROOT = resolve(import.meta.dirname, '..')
const FIXTURES = join(ROOT, 'tests/fixtures/crs')
const CORPUS_FILES = ['crs-tests.ndjson', 'benign.ndjson']
const RULES = '/usr/share/modsecurity-crs/rules'
const CRS_SETUP = '/etc/modsecurity/crs/crs-setup.conf'
const MODSECURITY_CONF = '/etc/modsecurity/modsecurity.conf-recommended'
const UNICODE_MAPPING = '/etc/modsecurity/unicode.mapping'
const APACHE = '/usr/sbin/apache2'
const MODULES = '/usr/lib/apache2/modules'
/** CRS's own default inbound threshold; the golden files keep the score, so any threshold follows. */
const THRESHOLD = 5
const REPLY_TIMEOUT_MS = 6000

export interface CorpusRecord {
  readonly id: string
  /** the exact request bytes, base64 */
  readonly wire: string
  /** null where the request line has none */
  readonly method: string | null
}

export interface GoldenRecord {
  readonly id: string
  /** HTTP status (null when the connection gave no answer) */
  readonly status: number | null
  /** TX:ANOMALY_SCORE after REQUEST-949 (null where ModSecurity did not score: Apache's 400s) */
  readonly score: number | null
  /** each paranoia level's part of the score, PL1..PL4 */
  readonly pl: readonly (number | null)[] | null
  /** ids of the matched rules that add to the inbound anomaly score, sorted, once each */
  readonly rules: readonly number[]
  /** ModSecurity's time for phases 1 and 2 (µs), from the audit log's stopwatch */
  readonly modsec_us: number | null
  /**
   * Set where `rules` cannot be trusted, so only the score is compared: `noid`, a rule's message
   * was cut (at 1,023 characters) before its id, so a matched rule may be missing; `pcre`, a rule
   * hit PCRE's match limit (its "Rule … Execution error" message names it though it did not match)
   */
  readonly rules_unreliable?: 'noid' | 'pcre'
}

/**
 * The ids of the rules that add to the inbound anomaly score: a rule (with its chained rules) whose
 * actions increment `tx.anomaly_score_plN`, as CRS 3.3's scoring rules do.
 */
export function scoringRuleIds(rulesDir: string): Set<number> {
  const ids = new Set<number>()
  for (const file of readdirSync(rulesDir).filter((f) => /^REQUEST-.*\.conf$/.test(f))) {
    const directives = readFileSync(join(rulesDir, file), 'utf8')
      .replace(/\\\r?\n/g, ' ')
      .split('\n')
      .filter((line) => /^\s*Sec(Rule|Action)\b/.test(line))
    let current: number | undefined
    let chained = false
    for (const directive of directives) {
      const id = /\bid:(\d+)/.exec(directive)
      if (!chained) current = id ? Number(id[1]) : undefined
      if (current !== undefined && /setvar:'?tx\.anomaly_score_pl\d=\+/.test(directive))
        ids.add(current)
      chained = /[",]\s*chain\s*[,"]/.test(directive)
    }
  }
  return ids
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer()
    server.once('error', fail)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => done(port))
    })
  })
}

interface Reference {
  readonly dir: string
  readonly port: number
  readonly config: string
  readonly auditLog: string
}

function apache(config: string, ...args: string[]): void {
  const run = spawnSync(APACHE, ['-f', config, ...args], { encoding: 'utf8' })
  if (run.status !== 0) throw new Error(`apache2 ${args.join(' ')}: ${run.stderr || run.stdout}`)
}

/**
 * Apache with ModSecurity on a free loopback port in a new folder: `configure` writes the
 * ModSecurity configuration into the folder and names what the server includes and what response
 * headers it sets.
 */
async function startApache(
  name: string,
  configure: (dir: string) => { includes: string[]; headers: string[] },
): Promise<Reference> {
  const dir = mkdtempSync(join(tmpdir(), `${name}-`))
  chmodSync(dir, 0o755)
  const port = await freePort()
  for (const sub of ['www', 'data', 'tmp']) mkdirSync(join(dir, sub))
  writeFileSync(join(dir, 'www/index.html'), 'ok\n')
  const www = userInfo({ encoding: 'utf8' }).uid === 0 ? wwwDataIds() : undefined
  if (www) for (const sub of ['data', 'tmp']) chownSync(join(dir, sub), www.uid, www.gid)
  const { includes, headers } = configure(dir)
  const config = join(dir, 'httpd.conf')
  writeFileSync(
    config,
    [
      'ServerRoot /etc/apache2',
      'ServerName 127.0.0.1',
      `Listen 127.0.0.1:${port}`,
      `PidFile ${dir}/httpd.pid`,
      ...(www ? ['User www-data', 'Group www-data'] : []),
      ...['mpm_event', 'authz_core', 'unique_id', 'headers', 'mime', 'security2'].map(
        (m) => `LoadModule ${m}_module ${MODULES}/mod_${m}.so`,
      ),
      'StartServers 2',
      'ServerLimit 4',
      'ThreadsPerChild 16',
      'MaxRequestWorkers 64',
      'Timeout 3',
      `ErrorLog ${dir}/error.log`,
      'LogLevel warn',
      'TypesConfig /etc/mime.types',
      `DocumentRoot ${dir}/www`,
      `<Directory ${dir}/www>`,
      '  Require all granted',
      '</Directory>',
      ...headers.map((header) => `Header always set ${header}`),
      ...includes.map((file) => `Include ${file}`),
      '',
    ].join('\n'),
  )
  apache(config, '-t')
  apache(config, '-k', 'start')
  for (let i = 0; i < 100; i++) {
    if ((await exchange(port, Buffer.from('GET / HTTP/1.0\r\n\r\n'), 'GET')).status !== null)
      return { dir, port, config, auditLog: join(dir, 'audit.log') }
    await new Promise((wait) => setTimeout(wait, 100))
  }
  throw new Error(`Apache did not answer on port ${port} (see ${dir}/error.log)`)
}

/** Debian's recommended ModSecurity settings, with the folder's paths and `changes`. */
function modSecurityConfig(dir: string, changes: [RegExp, string][]): string {
  let text = readFileSync(MODSECURITY_CONF, 'utf8')
    .replace(/^SecTmpDir .*$/m, `SecTmpDir ${dir}/tmp/`)
    .replace(/^SecDataDir .*$/m, `SecDataDir ${dir}/data/`)
    .replace(/^SecAuditLog .*$/m, `SecAuditLog ${dir}/audit.log`)
    .replace(/^SecUnicodeMapFile unicode\.mapping/m, `SecUnicodeMapFile ${UNICODE_MAPPING}`)
  for (const [pattern, replacement] of changes) text = text.replace(pattern, replacement)
  return text
}

/** Apache + ModSecurity + CRS at `level`, DetectionOnly, auditing every request as JSON. */
function startReference(level: number): Promise<Reference> {
  return startApache(`crs-ref-pl${level}`, (dir) => {
    writeFileSync(
      join(dir, 'crs-setup.conf'),
      readFileSync(CRS_SETUP, 'utf8') +
        `\nSecAction "id:900000,phase:1,nolog,pass,t:none,setvar:tx.paranoia_level=${level}"\n` +
        `SecAction "id:900110,phase:1,nolog,pass,t:none,` +
        `setvar:tx.inbound_anomaly_score_threshold=${THRESHOLD},` +
        `setvar:tx.outbound_anomaly_score_threshold=4"\n`,
    )
    const modsecurity = modSecurityConfig(dir, [
      [/^SecRuleEngine .*$/m, 'SecRuleEngine DetectionOnly'],
      [/^SecResponseBodyAccess .*$/m, 'SecResponseBodyAccess Off'],
      [/^SecAuditEngine .*$/m, 'SecAuditEngine On'],
      [/^SecAuditLogParts .*$/m, 'SecAuditLogParts ABHZ'],
    ])
    writeFileSync(join(dir, 'modsecurity.conf'), `${modsecurity}\nSecAuditLogFormat JSON\n`)
    // After REQUEST-949: the inbound score and each level's part, into the environment for headers.
    writeFileSync(
      join(dir, 'score.conf'),
      'SecAction "id:9990001,phase:2,pass,nolog,noauditlog,t:none,' +
        'setenv:crs_score=%{tx.anomaly_score},setenv:crs_pl1=%{tx.anomaly_score_pl1},' +
        'setenv:crs_pl2=%{tx.anomaly_score_pl2},setenv:crs_pl3=%{tx.anomaly_score_pl3},' +
        'setenv:crs_pl4=%{tx.anomaly_score_pl4}"\n',
    )
    return {
      includes: [
        join(dir, 'modsecurity.conf'),
        join(dir, 'crs-setup.conf'),
        `${RULES}/*.conf`,
        join(dir, 'score.conf'),
      ],
      headers: [
        'X-Unique-Id "%{UNIQUE_ID}e"',
        'X-Crs-Score "%{crs_score}e"',
        'X-Crs-Pl "%{crs_pl1}e,%{crs_pl2}e,%{crs_pl3}e,%{crs_pl4}e"',
      ],
    }
  })
}

function wwwDataIds(): { uid: number; gid: number } {
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('www-data:'))
  const [, , uid, gid] = (line ?? '').split(':')
  if (uid === undefined || gid === undefined) throw new Error('no www-data user')
  return { uid: Number(uid), gid: Number(gid) }
}

function stopReference(reference: Reference): void {
  apache(reference.config, '-k', 'stop')
}

interface Reply {
  status: number | null
  headers: Map<string, string>
  localPort?: number
  error?: string
}

/** Sends the bytes on a connection of its own and reads one response (or until closed). */
function exchange(port: number, wire: Buffer, method: string | null): Promise<Reply> {
  return new Promise((done) => {
    const socket = createConnection({ host: '127.0.0.1', port })
    const chunks: Buffer[] = []
    let localPort: number | undefined
    let finished = false
    const finish = (error?: string) => {
      if (finished) return
      finished = true
      socket.destroy()
      const reply = parseReply(Buffer.concat(chunks))
      done({ ...reply, ...(localPort ? { localPort } : {}), ...(error ? { error } : {}) })
    }
    socket.setTimeout(REPLY_TIMEOUT_MS, () => finish('timeout'))
    socket.on('connect', () => {
      localPort = socket.localPort
      socket.write(wire)
    })
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      if (replyComplete(Buffer.concat(chunks), method)) finish()
    })
    socket.on('end', () => finish())
    socket.on('error', (e) => finish(e.message))
  })
}

function replyComplete(buffer: Buffer, method: string | null): boolean {
  const end = buffer.indexOf('\r\n\r\n')
  if (end < 0) return false
  const head = buffer.subarray(0, end).toString('latin1')
  const length = /^content-length:\s*(\d+)/im.exec(head)
  if (length) {
    const bodyLength = method?.toUpperCase() === 'HEAD' ? 0 : Number(length[1])
    return buffer.length >= end + 4 + bodyLength
  }
  return buffer.subarray(buffer.length - 5).toString('latin1') === '0\r\n\r\n'
}

function parseReply(buffer: Buffer): Omit<Reply, 'localPort'> {
  const end = buffer.indexOf('\r\n\r\n')
  const lines = buffer
    .subarray(0, end < 0 ? buffer.length : end)
    .toString('latin1')
    .split('\r\n')
  const status = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '')
  const headers = new Map<string, string>()
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0)
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  return { status: status ? Number(status[1]) : null, headers }
}

interface Audited {
  rules: number[]
  unreliable: 'noid' | 'pcre' | undefined
  requestLine: string
  remotePort: number | undefined
  us: number | null
}

function readAuditLog(file: string, scoring: Set<number>): Map<string, Audited> {
  const byId = new Map<string, Audited>()
  if (!existsSync(file)) return byId
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line.trim()) continue
    let entry: {
      transaction?: { transaction_id?: string; remote_port?: number }
      request?: { request_line?: string }
      audit_data?: { messages?: string[]; stopwatch?: { p1?: number; p2?: number } }
    }
    try {
      entry = JSON.parse(line) as typeof entry
    } catch {
      continue
    }
    const id = entry.transaction?.transaction_id
    if (id === undefined) continue
    const messages = entry.audit_data?.messages ?? []
    const matched = messages.flatMap((m) =>
      [...m.matchAll(/\[id "(\d+)"\]/g)].map((x) => Number(x[1])),
    )
    const stopwatch = entry.audit_data?.stopwatch
    byId.set(id, {
      rules: [...new Set(matched.filter((n) => scoring.has(n)))].sort((a, b) => a - b),
      // A rule's message is "Warning. …" and ends with its tags; the body processors' errors carry
      // no id and are no rule's.
      unreliable: messages.some((m) => m.startsWith('Rule ') && m.includes('[id "'))
        ? 'pcre'
        : messages.some((m) => m.startsWith('Warning.') && !m.includes('[id "'))
          ? 'noid'
          : undefined,
      requestLine: entry.request?.request_line ?? '',
      remotePort: entry.transaction?.remote_port,
      us: stopwatch ? (stopwatch.p1 ?? 0) + (stopwatch.p2 ?? 0) : null,
    })
  }
  return byId
}

const numberOrNull = (text: string | undefined) =>
  text !== undefined && /^-?\d+$/.test(text) ? Number(text) : null

/** What the reference needs of Debian's Apache, ModSecurity and CRS packages. */
const REFERENCE_FILES = [APACHE, RULES, CRS_SETUP, MODSECURITY_CONF]

/** Whether Debian's Apache, ModSecurity and CRS are installed, so the reference can run here. */
export function referenceInstalled(): boolean {
  return REFERENCE_FILES.every((needed) => existsSync(needed))
}

/**
 * ModSecurity's time for phases 1 and 2 (µs) on each of `records` at `level` that it timed,
 * measured now: the requests are sent one at a time, so no request's time includes another's
 * (bench/crs).
 */
export async function referenceTimes(
  level: number,
  records: readonly CorpusRecord[],
): Promise<number[]> {
  const golden = await runLevel(level, records, scoringRuleIds(RULES), 1)
  return golden.flatMap((g) => (g.modsec_us === null ? [] : [g.modsec_us]))
}

async function runLevel(
  level: number,
  records: readonly CorpusRecord[],
  scoring: Set<number>,
  concurrency: number,
): Promise<GoldenRecord[]> {
  const reference = await startReference(level)
  const replies: Reply[] = new Array<Reply>(records.length)
  try {
    let next = 0
    const worker = async () => {
      while (next < records.length) {
        const index = next++
        const record = records[index]!
        replies[index] = await exchange(
          reference.port,
          Buffer.from(record.wire, 'base64'),
          record.method,
        )
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
  } finally {
    stopReference(reference)
  }
  const audited = readAuditLog(reference.auditLog, scoring)
  const byPort = new Map<number, Audited[]>()
  for (const entry of audited.values()) {
    if (entry.remotePort === undefined) continue
    byPort.set(entry.remotePort, [...(byPort.get(entry.remotePort) ?? []), entry])
  }
  const golden = records.map((record, i): GoldenRecord => {
    const reply = replies[i]!
    const uid = reply.headers.get('x-unique-id')
    let entry = uid && uid !== '(null)' ? audited.get(uid) : undefined
    if (entry === undefined && reply.localPort !== undefined) {
      // Apache's own refusals carry no unique id header: join by client port and request line
      // (a port alone may be another connection's, reused).
      const line = Buffer.from(record.wire, 'base64').toString('latin1').split('\r\n')[0]
      const same = (byPort.get(reply.localPort) ?? []).filter((c) => c.requestLine === line)
      entry = same.length === 1 ? same[0] : undefined
    }
    const pl = reply.headers.get('x-crs-pl')
    return {
      id: record.id,
      status: reply.status,
      score: numberOrNull(reply.headers.get('x-crs-score')),
      pl: pl ? pl.split(',').map(numberOrNull) : null,
      rules: entry?.rules ?? [],
      modsec_us: entry?.us ?? null,
      ...(entry?.unreliable ? { rules_unreliable: entry.unreliable } : {}),
    }
  })
  rmSync(reference.dir, { recursive: true, force: true })
  return golden
}

/** One transformation of one value, as ModSecurity gives it (binary strings). */
export interface TransformationVector {
  readonly name: string
  readonly input: string
  readonly output: string
}

/** ModSecurity's transformations that src-main/engine/crs/transformations.ts implements. */
const VECTOR_TRANSFORMATIONS = [
  'urlDecode',
  'urlDecodeUni',
  'htmlEntityDecode',
  'jsDecode',
  'cssDecode',
  'escapeSeqDecode',
  'utf8toUnicode',
  'removeNulls',
  'replaceNulls',
  'cmdLine',
  'compressWhitespace',
  'removeWhitespace',
  'replaceComments',
  'removeComments',
  'removeCommentsChar',
  'normalisePath',
  'normalisePathWin',
  'lowercase',
  'length',
  'sha1',
  'md5',
  'hexEncode',
  'hexDecode',
  'base64Decode',
  'base64DecodeExt',
  'sqlHexDecode',
  'trim',
  'trimLeft',
  'trimRight',
]

/** What the transformations read specially: escapes, entities, comments, paths, UTF-8 bytes. */
const VECTOR_TOKENS = [
  ...'%,%u,%U,ff,FF,0,1,4,7,8,9,a,A,f,x,X,u,+,&,#,;,&#,&#x,amp,lt,quot,nbsp'.split(','),
  ...'\\,/,.,..,*,-,--,/*,*/,<!--,-->,>,<,",\',^,(,=,==,0x,0X,\\x,\\u,\\0,//,./,../,C:,?'.split(
    ',',
  ),
  ',',
  ...['\0', ' ', '\t', '\n', '\r', '\v', '\xa0', '\xc3', '\xa9', '\xe2', '\x80', '\xac'],
  ...['\xf0', '\x9f', '\xff', '\xc0', '\xaf', '\xed', 'B', 'C', 'E', 'z', 'q', 'n', 't', 'b'],
]

/** A small seeded generator (mulberry32), so that the vectors are the same on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * ModSecurity's answers: Apache with ModSecurity and `rules`, each of which sets the environment
 * variable `out` from ARGS:<arg>, sent each value as that argument; X-Out's value per value.
 */
async function modSecurityAnswers(
  label: string,
  rules: readonly string[],
  values: readonly { arg: string; input: string }[],
): Promise<string[]> {
  const engine = await startApache(`crs-ref-${label}`, (dir) => {
    writeFileSync(
      join(dir, 'modsecurity.conf'),
      modSecurityConfig(dir, [[/^SecRuleEngine .*$/m, 'SecRuleEngine On']]),
    )
    writeFileSync(join(dir, 'rules.conf'), rules.join('\n') + '\n')
    return {
      includes: [join(dir, 'modsecurity.conf'), join(dir, 'rules.conf')],
      headers: ['X-Out "%{out}e"'],
    }
  })
  const answers: string[] = []
  try {
    for (const { arg, input } of values) {
      const query = [...Buffer.from(input, 'latin1')]
        .map((b) => `%${b.toString(16).padStart(2, '0')}`)
        .join('')
      const request = `GET /index.html?${arg}=${query} HTTP/1.1\r\nHost: localhost\r\n\r\n`
      const reply = await exchange(engine.port, Buffer.from(request, 'latin1'), 'GET')
      const out = reply.headers.get('x-out')
      if (out === undefined) throw new Error(`no answer for ${arg} ${JSON.stringify(input)}`)
      answers.push(out)
    }
  } finally {
    stopReference(engine)
  }
  rmSync(engine.dir, { recursive: true, force: true })
  return answers
}

/** `count` seeded values of up to `most` tokens for each of `args`. */
function seededValues(
  args: readonly string[],
  tokens: readonly string[],
  count: number,
  most: number,
): { arg: string; input: string }[] {
  const random = seeded(18)
  return args.flatMap((arg) =>
    Array.from({ length: count }, () => {
      let input = ''
      const length = Math.floor(random() * (most + 1))
      for (let t = 0; t < length; t++) input += tokens[Math.floor(random() * tokens.length)]
      return { arg, input }
    }),
  )
}

/**
 * `count` values per transformation, each run through ModSecurity itself: a rule per
 * transformation hex-encodes what it makes of ARGS:<name> into a response header.
 */
async function transformationVectors(count: number): Promise<TransformationVector[]> {
  const rules = VECTOR_TRANSFORMATIONS.map(
    (name, i) =>
      `SecRule ARGS:${name} "@unconditionalMatch" "id:${9990100 + i},phase:2,pass,nolog,` +
      `t:none,t:${name},t:hexEncode,setenv:out=%{MATCHED_VAR}"`,
  )
  const values = seededValues(VECTOR_TRANSFORMATIONS, VECTOR_TOKENS, count, 14)
  const answers = await modSecurityAnswers('tfn', rules, values)
  return values.map(({ arg, input }, i) => ({
    name: arg,
    input,
    output: answers[i] === '(null)' ? '' : Buffer.from(answers[i]!, 'hex').toString('latin1'),
  }))
}

/** One operator on one value, as ModSecurity decides it: its TX.0 when it matched, else null. */
export interface OperatorVector {
  readonly operator: string
  readonly parameter: string
  readonly input: string
  readonly match: string | null
}

/** Operators of CRS with a parameter each, as SecRule writes them (name without `@`). */
const VECTOR_OPERATORS: readonly [operator: string, parameter: string][] = [
  ['validateUtf8Encoding', ''],
  ['validateUrlEncoding', ''],
  ['validateByteRange', '9,10,13,32-126'],
  ['validateByteRange', '1-255'],
  ['pm', 'select union <script |3c|x \\;a'],
  ['eq', '5'],
  ['gt', '10'],
  ['lt', '-3'],
  ['ge', '0'],
  ['containsWord', 'select'],
  ['contains', 'GE'],
  ['within', 'GET POST'],
  ['beginsWith', 'sel'],
  ['endsWith', '5'],
  ['streq', 'GET'],
  ['ipMatch', '127.0.0.1,10.0.0.0/8,::1'],
]

const OPERATOR_TOKENS = [
  ...'%,%2,%zz,%41,A,select,SELECT,Select,union,<script,<,x,;a,\\;a,_,1,5,10,11,-,+,-3,-4'.split(
    ',',
  ),
  ...' 5,05,99999999999,GET,POST,GE,T P,(,sel,127.0.0.1,10.1.2.3,::1,.,:,0,2'.split(','),
  ...['\0', '\x7f', '\t', ' ', '\xc3', '\xa9', '\xe2', '\x82', '\xac', '\xf0', '\x9f'],
  ...['\x98', '\x80', '\xc0', '\xaf', '\xed', '\xa0', '\xff', '\xf5'],
]

/** `count` values per operator, each decided by ModSecurity (with `capture`, TX.0 when matched). */
async function operatorVectors(count: number): Promise<OperatorVector[]> {
  const args = VECTOR_OPERATORS.map((_, i) => `op${i}`)
  const rules = VECTOR_OPERATORS.map(
    ([operator, parameter], i) =>
      `SecRule ARGS:op${i} "@${operator} ${parameter}" "id:${9990200 + i},phase:2,pass,nolog,` +
      `capture,t:none,setenv:out=%{TX.0}"`,
  )
  const values = seededValues(args, OPERATOR_TOKENS, count, 6)
  const answers = await modSecurityAnswers('op', rules, values)
  return values.map(({ input }, i) => {
    const [operator, parameter] = VECTOR_OPERATORS[Math.floor(i / count)]!
    return { operator, parameter, input, match: answers[i] === '(null)' ? null : answers[i]! }
  })
}

export function readCorpus(dir: string): CorpusRecord[] {
  return CORPUS_FILES.flatMap((file) =>
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as CorpusRecord),
  )
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      corpus: { type: 'string', default: FIXTURES },
      levels: { type: 'string', default: '1,2,3,4' },
      concurrency: { type: 'string', default: '4' },
      vectors: { type: 'string', default: '100' },
    },
  })
  if (!referenceInstalled())
    throw new Error(
      `${REFERENCE_FILES.find((needed) => !existsSync(needed))} is ` +
        'missing: apt-get install apache2 libapache2-mod-security2 modsecurity-crs',
    )
  const records = readCorpus(resolve(values.corpus))
  const scoring = scoringRuleIds(RULES)
  for (const level of values.levels.split(',').filter(Boolean).map(Number)) {
    const golden = await runLevel(level, records, scoring, Number(values.concurrency))
    const out = join(FIXTURES, `golden-pl${level}.jsonl`)
    writeFileSync(out, golden.map((g) => JSON.stringify(g)).join('\n') + '\n')
    const scored = golden.filter((g) => g.score !== null).length
    const times = golden.flatMap((g) => (g.modsec_us === null ? [] : [g.modsec_us]))
    times.sort((a, b) => a - b)
    console.log(
      `PL${level}: ${golden.length} requests, ${scored} scored, ` +
        `median ModSecurity time ${times[times.length >> 1] ?? '-'} µs → ${out}`,
    )
  }
  const count = Number(values.vectors)
  if (count > 0) {
    const vectors: [string, object[]][] = [
      ['transformations.jsonl', await transformationVectors(count)],
      ['operators.jsonl', await operatorVectors(count)],
    ]
    for (const [file, lines] of vectors) {
      const out = join(FIXTURES, file)
      writeFileSync(out, lines.map((v) => JSON.stringify(v)).join('\n') + '\n')
      console.log(`${lines.length} vectors → ${out}`)
    }
  }
}

if (import.meta.filename === process.argv[1]) await main()
