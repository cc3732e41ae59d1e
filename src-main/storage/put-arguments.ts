// put()'s two forms, put(key, value, options) and put(entries, options), read as the runtime reads
// them: the same checks in the same order, so that a bad call fails with the runtime's message
// before anything is written.
import { serializeValue } from './encoding'
import { checkKey, checkKeyCount, checkSerializedValue } from './limits'
import type { PutOptions } from './storage'

const PUT_SIGNATURE =
  'put() may only be called with a single key-value pair and optional options as put(key, value, options) or with multiple key-value pairs and optional options as put(entries, options)'

export interface PutArguments {
  /** Each key with its value serialized; empty when there is nothing to write. */
  entries: Array<readonly [string, Buffer]>
  options: PutOptions | undefined
}

export function putArguments(args: unknown[]): PutArguments {
  const [first, second, third] = args
  if (args.length === 0) {
    throw new TypeError(
      "Failed to execute 'put' on 'DurableObjectStorage': parameter 1 is not of type 'string or object'.",
    )
  }
  if (typeof first === 'object' && first !== null) {
    if (second !== undefined && second !== null && typeof second !== 'object')
      throw new TypeError(PUT_SIGNATURE)
    // Entries whose value is undefined are skipped silently, as the runtime does.
    const entries = Object.entries(first).filter(([, value]) => value !== undefined)
    const serialized = entries.map(([key, value]) => [key, serializeValue(value)] as const)
    checkKeyCount(serialized.length)
    for (const [key, bytes] of serialized) {
      checkKey(key)
      checkSerializedValue(bytes)
    }
    return { entries: serialized, options: second as PutOptions | undefined }
  }
  if (second === undefined) throw new TypeError('put() called with undefined value.')
  const key = typeof first === 'string' ? first : String(first)
  const bytes = serializeValue(second)
  checkKey(key)
  checkSerializedValue(bytes)
  return { entries: [[key, bytes]], options: third as PutOptions | undefined }
}
