// One Aho–Corasick automaton over a rule's phrases (ModSecurity's acmp, as @pm and @pmFromFile
// build it per rule), folded into a dense transition table: a scan is one typed-array load per
// byte of a binary string, with nothing allocated. @rx patterns that are only an alternation of
// literals run on it too (regex-dialect.ts).

/** Whether ASCII letters compare without case (acmp's default) or exactly. */
export type PhraseCase = 'caseless' | 'exact'

const foldAscii = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c)

export class PhraseAutomaton {
  /** each byte's class; 0 for every byte no phrase holds (and anything above 0xff) */
  private readonly classOf = new Uint16Array(256)
  private readonly classes: number
  /**
   * row + class → the next state's row, a row being a state's number × `classes` (so a step is one
   * addition and one load); row 0 is the root's. States that complete a phrase are numbered last,
   * so a step tells them by their row alone.
   */
  private readonly delta: Int32Array
  private readonly firstOutputRow: number
  /** from the first such state on: the longest phrase ending there (through failure links) */
  private readonly output: Int32Array

  /** `phrases` are binary strings; the reported phrase is the first given of its folded text. */
  constructor(
    readonly phrases: readonly string[],
    letterCase: PhraseCase,
  ) {
    const fold = letterCase === 'caseless' ? foldAscii : (c: number) => c
    let classes = 1
    for (const phrase of phrases) {
      for (let i = 0; i < phrase.length; i++) {
        const c = fold(phrase.charCodeAt(i))
        if (c > 0xff) throw new Error(`phrase "${phrase}" is not a binary string`)
        if (this.classOf[c] !== 0) continue
        this.classOf[c] = classes++
        if (letterCase === 'caseless' && c >= 0x61 && c <= 0x7a)
          this.classOf[c - 0x20] = classes - 1
      }
    }
    this.classes = classes
    // The trie, then breadth-first failure links folded into the table.
    const trie: number[][] = [new Array<number>(classes).fill(-1)]
    const own: number[] = [-1]
    phrases.forEach((phrase, index) => {
      if (phrase.length === 0) return
      let state = 0
      for (let i = 0; i < phrase.length; i++) {
        const c = this.classOf[fold(phrase.charCodeAt(i))]!
        if (trie[state]![c] === -1) {
          trie[state]![c] = trie.length
          trie.push(new Array<number>(classes).fill(-1))
          own.push(-1)
        }
        state = trie[state]![c]!
      }
      if (own[state] === -1) own[state] = index
    })
    const delta = new Int32Array(trie.length * classes)
    const output = Int32Array.from(own)
    const fail = new Int32Array(trie.length)
    const queue: number[] = []
    for (let c = 1; c < classes; c++) {
      const child = trie[0]![c]!
      if (child !== -1) {
        delta[c] = child
        queue.push(child)
      }
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!
      if (output[state] === -1) output[state] = output[fail[state]!]!
      // Class 0 (a byte of no phrase) leads back to the root, as the zeroed table says.
      for (let c = 1; c < classes; c++) {
        const child = trie[state]![c]!
        const viaFail = delta[fail[state]! * classes + c]!
        if (child === -1) delta[state * classes + c] = viaFail
        else {
          delta[state * classes + c] = child
          fail[child] = viaFail
          queue.push(child)
        }
      }
    }
    // Renumbered: the root stays first, the states completing a phrase go last.
    const states = trie.length
    const order = [...Array(states).keys()].sort(
      (a, b) => Number(output[a] !== -1) - Number(output[b] !== -1) || a - b,
    )
    const renumbered = new Int32Array(states)
    order.forEach((state, position) => (renumbered[state] = position))
    this.delta = new Int32Array(states * classes)
    for (let state = 0; state < states; state++)
      for (let c = 0; c < classes; c++)
        this.delta[renumbered[state]! * classes + c] =
          renumbered[delta[state * classes + c]!]! * classes
    const firstOutput = order.findIndex((state) => output[state] !== -1)
    const firstOutputState = firstOutput === -1 ? states : firstOutput
    this.firstOutputRow = firstOutputState * classes
    this.output = Int32Array.from(order.slice(firstOutputState), (state) => output[state]!)
  }

  /** The phrase at the first place where one ends (the longest ending there), or -1. */
  firstMatch(value: string): number {
    const { classOf, delta, firstOutputRow } = this
    let row = 0
    for (let i = 0; i < value.length; i++) {
      const c = value.charCodeAt(i)
      row = delta[row + (c > 0xff ? 0 : classOf[c]!)]!
      if (row >= firstOutputRow) return this.output[(row - firstOutputRow) / this.classes]!
    }
    return -1
  }
}
