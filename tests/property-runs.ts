// How many runs a property of the soak project makes: its own count, times PROPERTY_RUNS (1 in
// `npm test`, 10 in `npm run soak`; vitest.config.ts).

const SCALE = Number(process.env.PROPERTY_RUNS ?? 1)

export function propertyRuns(runs: number): number {
  return Math.max(1, Math.round(runs * SCALE))
}
