// A request body sends a field the record holds and leaves out one it does not: the API tells an
// absent field (keep or default) from one sent empty.

/** Those of `keys` that `source` holds, with their values; the absent ones are left out. */
export function presentFields<Source extends object, Key extends keyof Source>(
  source: Source,
  keys: readonly Key[],
): Partial<Pick<Source, Key>> {
  return Object.fromEntries(
    keys.filter((key) => source[key] !== undefined).map((key) => [key, source[key]]),
  ) as Partial<Pick<Source, Key>>
}
