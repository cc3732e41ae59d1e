// Regular expressions of the Rules language, on a linear-time engine.
//
// The vendor compiles `matches` patterns with Rust's regex crate with Unicode disabled and UTF-8
// not required: matching is on raw bytes, `.` is any byte but `\n`, `\w \d \s \b` are ASCII,
// `(?i)` folds ASCII only, `\xHH` is a raw byte, and `(?u)` turns Unicode back on. There are no
// look-arounds and no back-references.
//
// This folder parses the Rust dialect itself (parser.ts, so it accepts and rejects what the
// vendor does, including verbose mode, nested classes and class set operations, `\b{start}` and
// friends, and counted repetitions above 1000) and emits an equivalent RE2 pattern for re2js,
// which matches in linear time (emitter.ts); this module compiles and caches it behind the
// prefilter (prefilter.ts) and the exact shortcuts (shortcuts.ts):
//  - byte mode (no `(?u)` anywhere): every byte is emitted as an explicit code unit 0..255 and the
//    input is the field's binary string, so classes, `.` and case folding are exactly byte-wise;
//  - Unicode mode (the pattern enables `u`): the input is decoded from UTF-8 and the pattern is
//    emitted with Unicode semantics (approximations are noted where RE2 differs from Rust).

import { RE2JS } from 're2js'
import { bytesToText, utf8Bytes } from '../values/bytes'
import { dfaOf, type DfaTest } from './dfa'
import { Emitter, sizeOf } from './emitter'
import { Parser } from './parser'
import {
  prefilterOf,
  scannedInput,
  type Clause,
  type Prefilter,
  type ScannedInput,
} from './prefilter'
import { requiredLiteral } from './required-literal'
import { shortcutOf } from './shortcuts'
import { RegexSyntaxError } from './tree'

export const DEFAULT_REGEX_SIZE_LIMIT = 10 * (1 << 20)
/** Approximate bytes per compiled NFA state, used to apply the vendor's size limit. */
const BYTES_PER_STATE = 32

export interface CompiledRegex {
  readonly source: string
  readonly unicode: boolean
  readonly groupCount: number
  /** literals and bytes of which every match contains one (undefined: nothing is known) */
  readonly gate: Clause | undefined
  /** unanchored search, as the vendor's `is_match` */
  test(binary: string): boolean
  /**
   * `test` on an input already scanned for the prefilter (shared by every pattern tried on the
   * same value of a request).
   */
  testScanned(input: ScannedInput): boolean
  /**
   * Replaces the first (leftmost-first) match: `expand` receives the capture groups (binary
   * strings, index 0 the whole match) and returns the replacement bytes. Without a match the
   * input is returned unchanged.
   */
  replaceFirst(binary: string, expand: (groups: readonly (string | undefined)[]) => string): string
}

const cache = new Map<string, CompiledRegex>()
const CACHE_LIMIT = 2000

function translateRe2Error(e: unknown): RegexSyntaxError {
  const msg = e instanceof Error ? e.message : String(e)
  if (/invalid character class range: `\\[pP]/.test(msg) || /invalid .*\\p/.test(msg)) {
    return new RegexSyntaxError('regex parse error: Unicode property not found')
  }
  return new RegexSyntaxError(`regex parse error: ${msg.replace(/^error parsing regexp: /, '')}`)
}

/**
 * Compiles a pattern of the vendor's dialect (cached by pattern text and size limit). Throws
 * RegexSyntaxError with a one-line version of the vendor's message.
 */
export function compileRegex(pattern: string, sizeLimit = DEFAULT_REGEX_SIZE_LIMIT): CompiledRegex {
  const key = `${sizeLimit}\u0000${pattern}`
  const hit = cache.get(key)
  if (hit) return hit
  const parser = new Parser(pattern)
  const tree = parser.parse()
  const states = sizeOf(tree)
  if (states * BYTES_PER_STATE > sizeLimit) {
    throw new RegexSyntaxError(`Compiled regex exceeds size limit of ${sizeLimit} bytes.`, true)
  }
  const unicode = parser.usesUnicode
  const emitted = new Emitter(unicode).emit(tree)
  let re: RE2JS
  try {
    re = RE2JS.compile(emitted, parser.usesLookbehind ? RE2JS.LOOKBEHINDS : 0)
  } catch (e) {
    throw translateRe2Error(e)
  }
  const compiled = new Re2Regex(
    pattern,
    unicode,
    re,
    prefilterOf(tree, unicode),
    unicode ? undefined : shortcutOf(tree),
    unicode ? undefined : dfaOf(tree),
    unicode ? undefined : requiredLiteral(tree),
  )
  if (cache.size >= CACHE_LIMIT) {
    const first = cache.keys().next()
    if (!first.done) cache.delete(first.value)
  }
  cache.set(key, compiled)
  return compiled
}

/** A pattern on re2js, behind its prefilter. A class, so that calls to it stay monomorphic. */
class Re2Regex implements CompiledRegex {
  readonly groupCount: number

  constructor(
    readonly source: string,
    readonly unicode: boolean,
    private readonly re: RE2JS,
    /** most inputs lack what a match needs: they are refused without running the automaton */
    private readonly prefilter: Prefilter | undefined,
    /** an exact one-pass test for the shapes shortcuts.ts knows */
    private readonly shortcut: ((binary: string) => boolean) | undefined,
    /** the byte-mode test as a lazy DFA (dfa.ts), where the pattern has one */
    private readonly dfa: DfaTest | undefined,
    /** bytes every match holds (required-literal.ts): a value without them is refused at once */
    private readonly required: string | undefined,
  ) {
    this.groupCount = re.groupCount()
  }

  get gate(): Clause | undefined {
    return this.prefilter?.gate
  }

  test(binary: string): boolean {
    // The DFA's or the shortcut's one pass costs less than scanning the value for the prefilter
    // (docs/decisions/0002-re2js.md).
    if (this.dfa !== undefined || this.shortcut !== undefined) return this.run(binary)
    return (
      (this.prefilter === undefined || this.prefilter.admits(scannedInput(binary))) &&
      this.run(binary)
    )
  }

  testScanned(input: ScannedInput): boolean {
    return (this.prefilter === undefined || this.prefilter.admits(input)) && this.run(input.binary)
  }

  replaceFirst(
    binary: string,
    expand: (groups: readonly (string | undefined)[]) => string,
  ): string {
    if (this.unicode) {
      const text = bytesToText(binary)
      const m = this.re.exec(text)
      if (!m) return binary
      const groups = groupsOf(m).map((g) => (g === undefined ? undefined : utf8Bytes(g)))
      const index = matchIndex(m)
      const whole = groupsOf(m)[0] ?? ''
      return (
        utf8Bytes(text.slice(0, index)) +
        expand(groups) +
        utf8Bytes(text.slice(index + whole.length))
      )
    }
    const m = this.re.exec(binary)
    if (!m) return binary
    const groups = groupsOf(m)
    const index = matchIndex(m)
    const whole = groups[0] ?? ''
    return binary.slice(0, index) + expand(groups) + binary.slice(index + whole.length)
  }

  private run(binary: string): boolean {
    if (this.required !== undefined && !binary.includes(this.required)) return false
    if (this.shortcut !== undefined) return this.shortcut(binary)
    const answer = this.dfa?.(binary)
    if (answer !== undefined) return answer
    return this.re.test(this.unicode ? bytesToText(binary) : binary)
  }
}

function groupsOf(m: unknown[]): (string | undefined)[] {
  return Array.from(m, (g) => (typeof g === 'string' ? g : undefined))
}

function matchIndex(m: unknown[]): number {
  const index = (m as { index?: unknown }).index
  return typeof index === 'number' ? index : 0
}

/** Validates a pattern without keeping the compiled form; returns the error message or undefined. */
export function regexError(
  pattern: string,
  sizeLimit = DEFAULT_REGEX_SIZE_LIMIT,
): string | undefined {
  try {
    compileRegex(pattern, sizeLimit)
    return undefined
  } catch (e) {
    if (e instanceof RegexSyntaxError) return e.message
    throw e
  }
}
