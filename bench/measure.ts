// Shared by every benchmark: time a piece of work and print it beside a reference measured in the
// same run, as a ratio. Figures from one machine are only comparable within one run, so every
// figure in bench/ is reported relative to its reference, never alone.

export interface Throughput {
  /** what was measured, e.g. "put (awaited)" */
  label: string
  /** operations per second */
  opsPerSec: number
}

/** Runs `work` (which performs `ops` operations) `rounds` times and keeps the fastest round. */
export async function throughput(
  label: string,
  ops: number,
  work: () => unknown,
  rounds = 3,
): Promise<Throughput> {
  let best = Infinity
  for (let round = 0; round < rounds; round++) {
    const started = process.hrtime.bigint()
    await work()
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9
    best = Math.min(best, elapsed)
  }
  return { label, opsPerSec: ops / best }
}

const fmt = (n: number): string =>
  n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toPrecision(3)

/**
 * Prints one line: the figure, its reference and figure/reference. `goal` is the ratio the issue
 * asks for; the line says whether it was met, so a reader needs no arithmetic.
 */
export function report(figure: Throughput, reference: Throughput, goal?: number): number {
  const ratio = figure.opsPerSec / reference.opsPerSec
  const verdict =
    goal === undefined
      ? ''
      : ratio >= goal
        ? `  (goal ≥ ${goal}: met)`
        : `  (goal ≥ ${goal}: NOT met)`
  console.log(
    `${figure.label.padEnd(44)} ${fmt(figure.opsPerSec).padStart(12)}/s   vs ${reference.label}: ${fmt(reference.opsPerSec)}/s   ratio ${ratio.toFixed(2)}${verdict}`,
  )
  return ratio
}

/** A section heading so `npm run bench` output reads as one report per benchmark. */
export function heading(title: string): void {
  console.log(`\n== ${title} ==`)
}
