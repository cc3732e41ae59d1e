// Writes tests/fixtures/libinjection/xss-vectors.json, the XSS and HTML5 vectors of
// tests/unit/crs/libinjection-xss.test.ts, with ModSecurity 2.9.7's own answers:
//
//   npx tsx scripts/libinjection-xss-fixtures.ts /path/to/libinjection /path/to/mod_security2.so
//
// The folder is a checkout of https://github.com/client9/libinjection at the version ModSecurity
// 2.9.7 bundles (3.9.2, commit e86ff40): its COPYING, tests/test-html5-*.txt (token streams) and
// data/xss-*.txt (XSS samples, URL-encoded, one a line, read as its src/reader.c reads them). The
// module is Debian's libapache2-mod-security2 2.9.7 (`apt-get download` it and `dpkg-deb -x`): a
// small C program, compiled here with `cc`, loads it and calls the libinjection_xss,
// libinjection_h5_init and libinjection_h5_next it exports, so every expected answer is the
// reference engine's, not ours. Besides libinjection's vectors it records generated edge cases
// (seeded, so the file is reproducible): short inputs built from the markup, entities, NULs and
// high bytes the detector treats specially, with the reference's verdict and token streams.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'

const ROOT = resolve(import.meta.dirname, '..')
const OUT = join(ROOT, 'tests/fixtures/libinjection/xss-vectors.json')
const SOURCE = 'https://github.com/client9/libinjection (3.9.2, commit e86ff40)'
/** Edge cases kept of each verdict, from a larger generated set. */
const EDGE_CASES_EACH = 300
const EDGE_CASES_GENERATED = 5000

// The module refers to two of Apache's data symbols, which must resolve for it to load at all;
// the program defines them (exported with -rdynamic) and never calls into Apache.
const HARNESS = String.raw`
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
char core_module[65536];
char ap_server_config_defines[65536];
typedef struct { const char *s; size_t len, pos; int is_close; void *state;
                 const char *token_start; size_t token_len; int token_type; } h5_state;
static int hex(int c) { return c <= '9' ? c - '0' : c - 'a' + 10; }
int main(int argc, char **argv) {
  void *so = dlopen(argv[1], RTLD_LAZY);
  if (!so) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  int (*xss)(const char *, size_t) = dlsym(so, "libinjection_xss");
  void (*init)(h5_state *, const char *, size_t, int) = dlsym(so, "libinjection_h5_init");
  int (*next)(h5_state *) = dlsym(so, "libinjection_h5_next");
  static char line[1 << 20], buf[1 << 19];
  while (fgets(line, sizeof line, stdin)) {
    size_t n = (strcspn(line, "\n") - 2) / 2;
    for (size_t i = 0; i < n; i++) buf[i] = (char)(hex(line[2 + 2 * i]) * 16 + hex(line[3 + 2 * i]));
    buf[n] = 0;
    if (line[0] == 'x') { printf("%d\n", xss(buf, n)); continue; }
    h5_state h;
    init(&h, buf, n, line[0] - '0');
    while (next(&h)) printf("%d,%zu,%zu;", h.token_type, (size_t)(h.token_start - buf), h.token_len);
    printf("\n");
  }
  return 0;
}
`

/** libinjection's token type numbers (libinjection_html5.h) by the names its tests print. */
const TOKEN_TYPES = [
  'DATA_TEXT',
  'TAG_NAME_OPEN',
  'TAG_NAME_CLOSE',
  'TAG_NAME_SELFCLOSE',
  'TAG_DATA',
  'TAG_CLOSE',
  'ATTR_NAME',
  'ATTR_VALUE',
  'TAG_COMMENT',
  'DOCTYPE',
]

interface Html5Vector {
  file: string
  title: string
  input: string
  /** the tokens in the DATA context, one `TYPE,length,text` a line, trimmed at the end */
  expected: string
}

const rtrim = (s: string) => s.replace(/[ \n\t\r]+$/, '')

/** A test-html5 file, trimmed as libinjection's src/testdriver.c trims it. */
function html5Vector(file: string, text: string): Html5Vector {
  const sections = /^--TEST--\n([\s\S]*?)--INPUT--\n([\s\S]*?)--EXPECTED--\n([\s\S]*)$/.exec(text)
  if (!sections) throw new Error(`${file}: not a --TEST--/--INPUT--/--EXPECTED-- file`)
  return {
    file,
    title: rtrim(sections[1] ?? ''),
    input: rtrim(sections[2] ?? ''),
    expected: rtrim(sections[3] ?? ''),
  }
}

/** src/reader.c's URL decoding: `+` is a space, `%XX` a byte when two hex digits follow. */
function readerDecode(line: string): string {
  return line
    .replace(/\+/g, ' ')
    .replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
}

/** Deterministic pseudo-random numbers (mulberry32), so the edge cases are the same each run. */
function random(seed: number): (below: number) => number {
  let state = seed
  return (below) => {
    state = (state + 0x6d2b79f5) | 0
    let t = Math.imul(state ^ (state >>> 15), 1 | state)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * below)
  }
}

const PIECES = [
  ...'<>/="\'`!-?%[]&#;xX016aA \t\n\v\r\0\x7f\x80\xff',
  ...['script', 'SCRIPT', 'scr\0ipt', 'iframe', 'svg', 'sv\0g', 'xsl', 'base', 'img', 'x:script'],
  ...['on', 'oNload', 'href', 'src', 'style', 'attributename', 'xlink:href', 'xmlns', 'values'],
  ...['javascript:', 'JaVa', 'data:', 'vbscript:', 'view-source:', '&#x6a;', '&#106;', '&#74'],
  ...['&#x4A', '&#x16a;', '&#0000106', '&#9;', '&#10;', '&#0;', '<!--', '-->', '--!>', '-\0->'],
  ...['[if', 'xml', 'import', 'entity', '<!doctype', '<![CDATA[', ']]>', '<%', '%>', '</', '<?'],
]

function edgeCases(count: number): string[] {
  const next = random(18)
  return Array.from({ length: count }, () => {
    let s = ''
    for (let n = 1 + next(12); n > 0; n--) {
      s += next(5) === 0 ? String.fromCharCode(next(256)) : (PIECES[next(PIECES.length)] ?? '')
    }
    return s
  })
}

const hex = (s: string) => Buffer.from(s, 'latin1').toString('hex')

async function main(checkout: string, module: string): Promise<void> {
  const copying = readFileSync(join(checkout, 'COPYING'), 'latin1')
  const html5 = readdirSync(join(checkout, 'tests'))
    .filter((file) => /^test-html5-.*\.txt$/.test(file))
    .sort()
    .map((file) => html5Vector(file, readFileSync(join(checkout, 'tests', file), 'latin1')))
  const samples = readdirSync(join(checkout, 'data'))
    .filter((file) => /^xss-.*\.txt$/.test(file))
    .sort()
    .flatMap((file) =>
      readFileSync(join(checkout, 'data', file), 'latin1')
        .split('\n')
        .map((text, index) => ({ file, line: index + 1, text: rtrim(text) }))
        .filter(({ text }) => text !== '' && !text.startsWith('#'))
        .map(({ file, line, text }) => ({ file, line, input: readerDecode(text) })),
    )

  const work = mkdtempSync(join(tmpdir(), 'libinjection-xss-'))
  try {
    writeFileSync(join(work, 'harness.c'), HARNESS)
    const program = join(work, 'harness')
    execFileSync('cc', ['-O2', '-rdynamic', '-o', program, join(work, 'harness.c'), '-ldl'])
    const ask = (lines: string[]) =>
      execFileSync(program, [resolve(module)], {
        input: lines.join('\n') + '\n',
        maxBuffer: 1 << 28,
      })
        .toString()
        .split('\n')
        .slice(0, lines.length)
    const tokensOf = (inputs: string[]) => {
      const answers = ask(inputs.flatMap((s) => [0, 1, 2, 3, 4].map((c) => `${c} ${hex(s)}`)))
      return inputs.map((_, i) => answers.slice(i * 5, i * 5 + 5))
    }

    // libinjection's own token streams must be what the reference module produces.
    const referenceHtml5 = tokensOf(html5.map((v) => v.input))
    html5.forEach((vector, i) => {
      const printed = (referenceHtml5[i]?.[0] ?? '')
        .split(';')
        .filter(Boolean)
        .map((token) => {
          const [type, start, length] = token.split(',').map(Number) as [number, number, number]
          return `${TOKEN_TYPES[type]},${length},${vector.input.slice(start, start + length)}\n`
        })
        .join('')
      if (rtrim(printed) !== vector.expected) {
        throw new Error(`${vector.file}: the module's tokens differ from the file's`)
      }
    })

    const verdicts = (inputs: string[]) =>
      ask(inputs.map((s) => `x ${hex(s)}`)).map((a) => a === '1')
    const sampleVerdicts = verdicts(samples.map((s) => s.input))
    // As many detected as undetected edge cases: generated inputs are mostly harmless.
    const generated = edgeCases(EDGE_CASES_GENERATED)
    const generatedVerdicts = verdicts(generated)
    const pick = (xss: boolean) =>
      generated
        .map((input, i) => ({ input, xss: generatedVerdicts[i] === true }))
        .filter((edge) => edge.xss === xss)
        .slice(0, EDGE_CASES_EACH)
    const picked = [...pick(true), ...pick(false)]
    const edges = picked.map((edge) => edge.input)
    const edgeVerdicts = picked.map((edge) => edge.xss)
    const edgeTokens = tokensOf(edges)

    const fixture = {
      notice:
        `Converted from libinjection's tests/test-html5-*.txt and data/xss-*.txt by ` +
        `scripts/libinjection-xss-fixtures.ts, with the verdicts and token streams of ` +
        `libinjection_xss and libinjection_h5_next in Debian's ModSecurity 2.9.7 module. ` +
        `Source: ${SOURCE}. Inputs are binary strings (one character per byte); a token is ` +
        `"type,start,length" with libinjection_html5.h's type numbers.\n\n${copying.trim()}`,
      html5,
      samples: samples.map((sample, i) => ({ ...sample, xss: sampleVerdicts[i] })),
      edges: edges.map((input, i) => ({
        input,
        xss: edgeVerdicts[i],
        tokens: edgeTokens[i],
      })),
    }
    const options = (await resolveConfig(OUT)) ?? {}
    writeFileSync(OUT, await format(JSON.stringify(fixture), { ...options, parser: 'json' }))
    const detected = sampleVerdicts.filter(Boolean).length
    console.log(
      `${html5.length} token streams, ${samples.length} samples (${detected} XSS), ` +
        `${edges.length} edge cases (${edgeVerdicts.filter(Boolean).length} XSS) -> ${OUT}`,
    )
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

const [checkout, module] = process.argv.slice(2)
if (!checkout || !module) {
  console.error(
    'usage: npx tsx scripts/libinjection-xss-fixtures.ts LIBINJECTION_DIR MOD_SECURITY2_SO',
  )
  process.exit(2)
}
await main(checkout, module)
