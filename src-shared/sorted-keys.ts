// JSON values compared or written whatever order their objects' keys were built in.

/** `value` with the keys of every object in it sorted (arrays keep their order). */
export function withSortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withSortedKeys)
  if (value === null || typeof value !== 'object') return value
  const object = value as Record<string, unknown>
  return Object.fromEntries(
    Object.keys(object)
      .sort()
      .map((key) => [key, withSortedKeys(object[key])]),
  )
}

/** Text that is equal for equal JSON values, whatever their keys' order. */
export const contentKey = (value: unknown): string => JSON.stringify(withSortedKeys(value))
