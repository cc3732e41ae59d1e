// The key-value limits (docs/vendor-behaviour.md#stateful-object-storage), enforced on both
// backends with the vendor runtime's messages. Where this is stricter than local workerd,
// DEVIATIONS.md says so.
import { keyByteLength } from './encoding'

export const MAX_KEYS_PER_CALL = 128
export const MAX_KEY_BYTES = 2048
export const MAX_VALUE_BYTES = 131_072
/** The runtime measures the serialized value and allows this much for V8's tags, lengths and header. */
const SERIALIZATION_CUSHION = 34

export function checkKey(key: string): void {
  // No UTF-16 code unit takes more than three UTF-8 bytes: most keys need no counting.
  if (key.length * 3 <= MAX_KEY_BYTES) return
  const size = keyByteLength(key)
  if (size > MAX_KEY_BYTES) {
    throw new RangeError(
      `Keys cannot be larger than ${MAX_KEY_BYTES} bytes. A key of size ${size} was provided.`,
    )
  }
}

export function checkSerializedValue(bytes: Uint8Array): void {
  if (bytes.length > MAX_VALUE_BYTES + SERIALIZATION_CUSHION) {
    throw new RangeError(
      `Values cannot be larger than ${MAX_VALUE_BYTES} bytes. A value of size ${bytes.length} was provided.`,
    )
  }
}

export function checkKeyCount(count: number): void {
  if (count > MAX_KEYS_PER_CALL) {
    throw new RangeError(
      `Maximum number of key value pairs is ${MAX_KEYS_PER_CALL}. ${count} pairs were provided.`,
    )
  }
}
