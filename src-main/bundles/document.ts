// The bundle as a document: checking one that arrives against the schema (format and version
// first, so that another kind of file is named as such), and writing one in its canonical text.

import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { badRequest } from '@shared/api/errors'
import { BUNDLE_FORMAT, BUNDLE_VERSION, ZoneBundle } from '@shared/api/bundle'
import { withSortedKeys } from '@shared/sorted-keys'
import { BUNDLE_ERRORS } from '@shared/api/error-codes'

// Compiled on the first import, not at start: compiling the schema costs a third of a second,
// which every start of the service (the crash tests make fifty) would otherwise pay.
let validator: ValidateFunction<ZoneBundle> | undefined
const bundleValidator = (): ValidateFunction<ZoneBundle> =>
  (validator ??= new Ajv({ allErrors: false, strict: false }).compile<ZoneBundle>(ZoneBundle))

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)

function schemaMessage(error: ErrorObject): string {
  const where = error.instancePath === '' ? 'the bundle' : error.instancePath
  if (error.keyword === 'additionalProperties') {
    const extra = (error.params as { additionalProperty?: string }).additionalProperty
    return `${where} has an unknown property: ${String(extra)}`
  }
  return `${where} ${error.message ?? 'is invalid'}`
}

/** `input` as a bundle, or the 400 that says why it is not one, pointing into it. */
export function checkBundle(input: unknown): ZoneBundle {
  if (!isObject(input) || input.format !== BUNDLE_FORMAT) {
    throw badRequest(
      BUNDLE_ERRORS.notABundle,
      `Not a zone bundle: "format" must be "${BUNDLE_FORMAT}"`,
      { source: { pointer: '/format' } },
    )
  }
  if (input.version !== BUNDLE_VERSION) {
    throw badRequest(
      BUNDLE_ERRORS.notABundle,
      `Bundle version ${JSON.stringify(input.version)} is not one this workbench reads (it reads version ${BUNDLE_VERSION})`,
      { source: { pointer: '/version' } },
    )
  }
  const validate = bundleValidator()
  if (!validate(input)) {
    const [first] = validate.errors ?? []
    throw badRequest(
      BUNDLE_ERRORS.schema,
      `Invalid bundle: ${first === undefined ? 'it breaks the schema' : schemaMessage(first)}`,
      { source: { pointer: first?.instancePath || '/' } },
    )
  }
  return input
}

/**
 * The bundle's canonical text: two-space indent, its own fields first in the schema's order and
 * every object within with sorted keys, ending in a newline. Equal bundles are equal bytes.
 */
export function bundleText(bundle: ZoneBundle): string {
  const ordered = Object.fromEntries(
    Object.keys(ZoneBundle.properties)
      .filter((key) => bundle[key as keyof ZoneBundle] !== undefined)
      .map((key) => [key, withSortedKeys(bundle[key as keyof ZoneBundle])]),
  )
  return `${JSON.stringify(ordered, null, 2)}\n`
}
