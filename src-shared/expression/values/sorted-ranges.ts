// Sets of integers as sorted, merged, inclusive ranges: what an `in {…}` set of integers and an
// IpRangeSet (ip.ts) both build once, so that membership is a binary search.

/** Merges ranges sorted by their start: overlapping or adjacent ranges become one. */
export function mergeSortedRanges(
  sorted: readonly (readonly [number, number])[],
): [number, number][] {
  const out: [number, number][] = []
  for (const r of sorted) {
    const last = out[out.length - 1]
    if (last && r[0] <= last[1] + 1) last[1] = Math.max(last[1], r[1])
    else out.push([r[0], r[1]])
  }
  return out
}

/** mergeSortedRanges for 128-bit values (IPv6 addresses). */
export function mergeSortedBigintRanges(
  sorted: readonly (readonly [bigint, bigint])[],
): [bigint, bigint][] {
  const out: [bigint, bigint][] = []
  for (const r of sorted) {
    const last = out[out.length - 1]
    if (last && r[0] <= last[1] + 1n) last[1] = last[1] > r[1] ? last[1] : r[1]
    else out.push([r[0], r[1]])
  }
  return out
}

/**
 * Whether `n` falls in one of the sorted, non-overlapping ranges `[starts[i], ends[i]]`: a binary
 * search for the last range starting at or below `n`.
 */
export function inRanges<N extends number | bigint>(
  starts: ArrayLike<N>,
  ends: ArrayLike<N>,
  n: N,
): boolean {
  let lo = 0
  let hi = starts.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if ((starts[mid] as N) <= n) lo = mid + 1
    else hi = mid - 1
  }
  return hi >= 0 && n <= (ends[hi] as N)
}
