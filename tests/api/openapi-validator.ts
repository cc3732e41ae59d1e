// The vendor's OpenAPI subset (tests/fixtures/openapi/cloudflare-subset.json, made by
// scripts/openapi-subset.ts) as Ajv validators: for one of our routes, the schema of the response
// it documents for a status, and the schema of its request body.
//
// The document is OpenAPI 3.0, whose schemas are not JSON Schema, and its generator has habits a
// literal reading would turn into schemas nothing can meet. Both are rewritten once, before Ajv
// sees them:
// - `nullable: true` (3.0's only way to allow null) becomes `anyOf: [the schema, {type: 'null'}]`,
//   so null passes whatever else the schema says, an `enum` without null included: the document
//   writes a failure's result as `{type: object, nullable: true, enum: [null]}`.
// - `discriminator` (the rulesets' `oneOf` of rule types, keyed on `action`, with a `mapping`)
//   becomes what it means: the property must be one of the mapping's keys, and the object must
//   match the schema its key maps to (one `if`/`then` per key). A discriminator without a mapping
//   is refused, so that a regenerated subset cannot weaken this unnoticed.
// - Every other `oneOf` is read as `anyOf`. The document uses it for alternatives that overlap: a
//   WAF package answer is `oneOf [the common single answer, {result: object}]`, which every object
//   result meets twice, and a rule position's three forms require none of their properties.
// - A failure answer written `allOf [<the success answer>, <…api-response-common-failure>]`
//   (`success: true` and `success: false` at once) is read as its failure member: the generator
//   overlays the failure's fields on the success shape, it does not intersect them.
// - `readOnly` properties are not required in a request body (OpenAPI 3.0: they "SHOULD NOT be
//   sent as part of the request"); in an answer they are.
// - `$ref`s name the components under one Ajv schema id.
// Formats: the subset uses `date-time` and `hostname`, defined here; Ajv's strict mode fails on any
// other, as it does on an unknown keyword, so nothing in a new subset is skipped silently.

import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

export interface SubsetRoute {
  method: string
  /** our route pattern below /client/v4 */
  route: string
  /** the document's path template */
  path?: string
}

export interface Subset {
  openapi: string
  info: JsonObject
  paths: Record<string, Record<string, JsonObject>>
  components: Record<string, Record<string, JsonObject>>
  'x-routes': SubsetRoute[]
  'x-undocumented-routes': SubsetRoute[]
}

const SUBSET_FILE = join(import.meta.dirname, '..', 'fixtures', 'openapi', 'cloudflare-subset.json')

export function readSubset(): Subset {
  return JSON.parse(readFileSync(SUBSET_FILE, 'utf8')) as Subset
}

const ID = 'cloudflare-subset'
type Direction = 'request' | 'response'

/** RFC 3339's date-time (section 5.6), the OpenAPI `date-time` format. */
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/
/** RFC 1123 host names, dot-separated labels of letters, digits and inner hyphens. */
const HOSTNAME =
  /^(?=.{1,253}\.?$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*\.?$/i

/** Whether a property's schema is read-only, itself, through allOf or through its `$ref`. */
function readOnly(schema: Json | undefined, schemas: Record<string, JsonObject>): boolean {
  if (!isObject(schema)) return false
  if (schema.readOnly === true) return true
  if (typeof schema.$ref === 'string') return readOnly(schemas[refName(schema.$ref)], schemas)
  return Array.isArray(schema.allOf) && schema.allOf.some((s) => readOnly(s, schemas))
}

/** The JSON Schema Ajv validates for an OpenAPI 3.0 schema (see the top of this file). */
function jsonSchemaOf(
  schema: Json,
  direction: Direction,
  schemas: Record<string, JsonObject>,
): Json {
  const convert = (s: Json) => jsonSchemaOf(s, direction, schemas)
  if (Array.isArray(schema)) return schema.map(convert)
  if (!isObject(schema)) return schema
  const { nullable, discriminator, ...rest } = schema
  const converted: JsonObject = {}
  for (const [key, value] of Object.entries(rest)) {
    if (key === '$ref') {
      converted.$ref = componentRef(value as string)
    } else if (key === 'properties' || key === 'patternProperties') {
      converted[key] = Object.fromEntries(
        Object.entries(value as JsonObject).map(([name, s]) => [name, convert(s)]),
      )
    } else if (key === 'oneOf') {
      converted.anyOf = convert(value)
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf'].includes(key)) {
      converted[key] = convert(value)
    } else {
      converted[key] = value
    }
  }
  if (direction === 'request' && Array.isArray(converted.required)) {
    const properties = (rest.properties ?? {}) as JsonObject
    converted.required = converted.required.filter(
      (name) => !readOnly(properties[name as string], schemas),
    )
  }
  const selected = discriminator === undefined ? converted : discriminated(converted, discriminator)
  return nullable === true ? { anyOf: [selected, { type: 'null' }] } : selected
}

function refName(ref: string): string {
  const match = /^#\/components\/schemas\/([^/]+)$/.exec(ref)
  if (match === null) throw new Error(`a schema may only refer to a schema: ${ref}`)
  return match[1]!
}

const componentRef = (ref: string) => `${ID}#/definitions/${refName(ref)}`

/** `oneOf` with a discriminator: the schema the discriminating property's value maps to. */
function discriminated(schema: JsonObject, discriminator: Json): JsonObject {
  const mapping = isObject(discriminator) ? discriminator.mapping : undefined
  if (!isObject(discriminator) || !isObject(mapping)) {
    throw new Error(`a discriminator without a mapping: ${JSON.stringify(discriminator)}`)
  }
  const property = discriminator.propertyName as string
  const { anyOf: _branches, ...rest } = schema
  const keys = Object.keys(mapping)
  return {
    ...rest,
    type: 'object',
    required: [property],
    properties: { [property]: { enum: keys } },
    allOf: keys.map((key) => ({
      if: { properties: { [property]: { const: key } } },
      then: { $ref: componentRef(mapping[key] as string) },
    })),
  }
}

/** One Ajv per direction, holding the subset's schemas as definitions of one schema. */
function ajvFor(subset: Subset, direction: Direction): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    // The document states `required` through allOf branches and leaves types implicit in places;
    // those are its style, not mistakes. Unknown keywords and formats still fail.
    strictTypes: false,
    strictRequired: false,
    strictTuples: false,
    formats: {
      'date-time': (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
      hostname: HOSTNAME,
    },
  })
  const schemas = subset.components.schemas ?? {}
  ajv.addSchema({
    $id: ID,
    definitions: Object.fromEntries(
      Object.entries(schemas).map(([name, schema]) => [
        name,
        jsonSchemaOf(schema, direction, schemas),
      ]),
    ),
  })
  return ajv
}

/** A component an operation names by `$ref` (a response, a request body), or the value itself. */
function resolved(subset: Subset, value: JsonObject): JsonObject {
  const ref = value.$ref
  if (typeof ref !== 'string') return value
  const [, , kind, name] = ref.split('/') as [string, string, string, string]
  const found = subset.components[kind]?.[name]
  if (found === undefined) throw new Error(`dangling $ref ${ref}`)
  return found
}

/** A failure answer's schema: the failure member of the document's success-and-failure allOf. */
function failureOf(schema: Json): Json {
  if (!isObject(schema) || !Array.isArray(schema.allOf)) return schema
  const failure = schema.allOf.find(
    (member) => isObject(member) && /api-response-common-failure$/.test(String(member.$ref)),
  )
  return failure ?? schema
}

export function errorsText(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n')
}

export class OpenApiValidator {
  private readonly responses: Ajv
  private readonly requests: Ajv
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly byRoute = new Map<string, string>()

  constructor(readonly subset: Subset) {
    this.responses = ajvFor(subset, 'response')
    this.requests = ajvFor(subset, 'request')
    for (const { method, route, path } of subset['x-routes']) {
      this.byRoute.set(`${method} ${route}`, path!)
    }
  }

  /** The document's operation for our route, or an error naming a route it does not describe. */
  operation(method: string, route: string): JsonObject {
    const path = this.byRoute.get(`${method} ${route}`)
    if (path === undefined) throw new Error(`${method} ${route} is not in the subset`)
    return this.subset.paths[path]![method.toLowerCase()]!
  }

  /**
   * The response the document gives for `status`: its own, or its class's (`4XX`), or `default`;
   * undefined when it documents none.
   */
  response(method: string, route: string, status: number): JsonObject | undefined {
    const responses = this.operation(method, route).responses as JsonObject
    const found =
      responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default
    return isObject(found) ? resolved(this.subset, found) : undefined
  }

  /** The validator of a JSON response's body for `status`; undefined when it has no body. */
  responseBody(method: string, route: string, status: number): ValidateFunction | undefined {
    const response = this.response(method, route, status)
    if (response === undefined) {
      throw new Error(`${method} ${route}: the document gives no response for ${status}`)
    }
    const json = (response.content as JsonObject | undefined)?.['application/json']
    if (!isObject(json) || json.schema === undefined) return undefined
    const schema = status >= 400 ? failureOf(json.schema) : json.schema
    return this.compile(`response ${method} ${route} ${status}`, 'response', schema)
  }

  /**
   * The request body the document describes: whether it is required, and the validator of its
   * JSON schema when it gives one; undefined when it describes none.
   */
  requestBody(
    method: string,
    route: string,
  ): { required: boolean; validate?: ValidateFunction } | undefined {
    const body = this.operation(method, route).requestBody
    if (!isObject(body)) return undefined
    const resolvedBody = resolved(this.subset, body)
    const json = (resolvedBody.content as JsonObject)['application/json']
    const required = resolvedBody.required === true
    if (!isObject(json) || json.schema === undefined) return { required }
    return {
      required,
      validate: this.compile(`request ${method} ${route}`, 'request', json.schema),
    }
  }

  private compile(key: string, direction: Direction, schema: Json): ValidateFunction {
    let validate = this.compiled.get(key)
    if (validate === undefined) {
      const ajv = direction === 'request' ? this.requests : this.responses
      const converted = jsonSchemaOf(schema, direction, this.subset.components.schemas ?? {})
      validate = ajv.compile(converted as JsonObject)
      this.compiled.set(key, validate)
    }
    return validate
  }
}
