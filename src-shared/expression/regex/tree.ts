// The syntax tree of a pattern of the vendor's regex dialect, as regex/parser.ts builds it and
// the emitter, the prefilter and the shortcuts read it, and the error of a pattern that cannot
// be compiled.

export class RegexSyntaxError extends Error {
  constructor(
    message: string,
    readonly tooBig = false,
  ) {
    super(message)
  }
}

export interface Flags {
  readonly i: boolean
  readonly m: boolean
  readonly s: boolean
  readonly U: boolean
  readonly u: boolean
  readonly x: boolean
  readonly R: boolean
}

export const DEFAULT_FLAGS: Flags = {
  i: false,
  m: false,
  s: false,
  U: false,
  u: false,
  x: false,
  R: false,
}

export type AssertKind =
  | 'start'
  | 'end'
  | 'startText'
  | 'endText'
  | 'word'
  | 'notWord'
  | 'wordStart'
  | 'wordEnd'
  | 'wordStartHalf'
  | 'wordEndHalf'

/** A set of code points (or bytes in byte mode) as sorted disjoint inclusive ranges. */
export type Ranges = [number, number][]

export interface ClassSet {
  /** explicit code point / byte ranges */
  ranges: Ranges
  /** Unicode-only items that cannot be expanded here (`\pL`, Unicode `\w`), as RE2 text */
  opaque: string[]
  negated: boolean
}

/** The syntax tree of a pattern (read by the emitter, prefilter.ts and shortcuts.ts). */
export type RegexNode =
  | { t: 'empty' }
  | { t: 'lit'; cp: number; byte: boolean; f: Flags }
  | { t: 'class'; set: ClassSet; f: Flags }
  | { t: 'dot'; f: Flags }
  | { t: 'assert'; kind: AssertKind; f: Flags }
  | { t: 'rep'; node: RegexNode; min: number; max: number; greedy: boolean }
  | { t: 'group'; node: RegexNode; capture: boolean; name: string | undefined }
  | { t: 'concat'; items: RegexNode[] }
  | { t: 'alt'; items: RegexNode[] }
