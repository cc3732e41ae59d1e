// The part of the vendor's OpenAPI document (https://github.com/cloudflare/api-schemas,
// openapi.json) that describes the routes this server serves under /client/v4, for
// tests/api/openapi-conformance.test.ts. The routes come from the server's own route table, so a
// route added later is picked up when this is run again.
//
//   node --import tsx scripts/openapi-subset.ts <openapi.json> <commit>
//
// It writes tests/fixtures/openapi/cloudflare-subset.json: for each route the document describes,
// the operation's parameters, request body and responses, with every component they reach through
// `$ref` copied under `components`, and the routes it does not describe. Documentation-only
// keywords (descriptions, examples, `x-` extensions) are dropped: the subset is for validation.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { format, resolveConfig } from 'prettier'
import { createService } from '../src-main/service'
import { API_PREFIX } from '../src-main/api/server'

const ROOT = resolve(import.meta.dirname, '..')
const SUBSET_FILE = join(ROOT, 'tests/fixtures/openapi/cloudflare-subset.json')
const SOURCE = 'https://github.com/cloudflare/api-schemas'

type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
type JsonObject = { [key: string]: Json }

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value)

/** Our route, as the route table holds it, and the document's operation it is. */
interface RouteMatch {
  method: string
  /** our pattern without the API prefix, e.g. /zones/:zone_id/filters */
  route: string
  /** the document's path template, e.g. /zones/{zone_identifier}/filters; absent: undocumented */
  path?: string
}

/** The vendor's routes this server holds (HEAD is Fastify's, made for every GET). */
async function servedRoutes(): Promise<{ method: string; route: string }[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'zw-openapi-subset-'))
  // Never listened on: the service is made for its route table only.
  const service = await createService({
    dataDir,
    api: {
      credentials: {
        apiToken: 'openapiSubsetToken0123456789abcdefghij',
        email: 'openapi-subset@zone-workbench.local',
        apiKey: '0123456789abcdef0123456789abcdef01234',
      },
      port: 0,
    },
    shell: 'headless',
  })
  try {
    await service.server.ready()
    return service.server.routeTable
      .filter((r) => r.url.startsWith(`${API_PREFIX}/`) && r.method !== 'HEAD')
      .map((r) => ({ method: r.method, route: r.url.slice(API_PREFIX.length) }))
  } finally {
    await service.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * The document's path that serves `route`, segment by segment: a literal matches the same literal
 * or a parameter, our parameter only a parameter. Of several, the one with the most literal
 * matches (`/pagerules/settings` before `/pagerules/{pagerule_id}`), as OpenAPI matches concrete
 * paths before templated ones.
 */
function documentPath(
  route: string,
  method: string,
  paths: Record<string, Json>,
): string | undefined {
  const ours = route.split('/')
  let best: { path: string; literals: number } | undefined
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item) || !isObject(item[method.toLowerCase()])) continue
    const theirs = path.split('/')
    if (theirs.length !== ours.length) continue
    let literals = 0
    const fits = theirs.every((segment, i) => {
      const mine = ours[i]!
      if (segment.startsWith('{')) return true
      if (mine.startsWith(':') || mine !== segment) return false
      literals++
      return true
    })
    if (fits && (best === undefined || literals > best.literals)) best = { path, literals }
  }
  return best?.path
}

const DOCUMENTATION = new Set(['description', 'example', 'examples', 'externalDocs', 'title'])

/** A schema without its documentation keywords; property names are kept whatever they are. */
function schemaOnly(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(schemaOnly)
  if (!isObject(schema)) return schema
  const kept: JsonObject = {}
  for (const [key, value] of Object.entries(schema)) {
    if (DOCUMENTATION.has(key) || key.startsWith('x-')) continue
    if (key === 'properties' || key === 'patternProperties') {
      kept[key] = Object.fromEntries(
        Object.entries(value as JsonObject).map(([name, s]) => [name, schemaOnly(s)]),
      )
    } else if (['items', 'additionalProperties', 'not', 'allOf', 'anyOf', 'oneOf'].includes(key)) {
      kept[key] = schemaOnly(value)
    } else {
      kept[key] = value
    }
  }
  return kept
}

/** A media-type map with each schema stripped (examples dropped). */
function contentOnly(content: Json): JsonObject {
  return Object.fromEntries(
    Object.entries(content as JsonObject).map(([type, media]): [string, JsonObject] => [
      type,
      isObject(media) && media.schema !== undefined ? { schema: schemaOnly(media.schema) } : {},
    ]),
  )
}

function parameterOnly(parameter: Json): Json {
  if (!isObject(parameter) || parameter.$ref !== undefined) return parameter
  const { name, in: where, required, schema, style, explode } = parameter
  const kept: JsonObject = { name: name!, in: where! }
  if (required !== undefined) kept.required = required
  if (style !== undefined) kept.style = style
  if (explode !== undefined) kept.explode = explode
  if (schema !== undefined) kept.schema = schemaOnly(schema)
  return kept
}

function requestBodyOnly(body: Json): Json {
  if (!isObject(body) || body.$ref !== undefined) return body
  return {
    ...(body.required === undefined ? {} : { required: body.required }),
    content: contentOnly(body.content ?? {}),
  }
}

function responseOnly(response: Json): Json {
  if (!isObject(response) || response.$ref !== undefined) return response
  return {
    description: response.description ?? '',
    ...(response.content === undefined ? {} : { content: contentOnly(response.content) }),
  }
}

/** The operation as validation needs it, path-level parameters merged in (the operation's win). */
function operationOnly(item: JsonObject, method: string): JsonObject {
  const operation = item[method] as JsonObject
  const own = (operation.parameters ?? []) as Json[]
  const key = (p: Json) => (isObject(p) ? `${String(p.in)} ${String(p.name ?? p.$ref)}` : '')
  const inherited = ((item.parameters ?? []) as Json[]).filter(
    (p) => !own.some((o) => key(o) === key(p)),
  )
  const parameters = [...inherited, ...own].map(parameterOnly)
  const kept: JsonObject = { operationId: operation.operationId ?? null }
  if (parameters.length > 0) kept.parameters = parameters
  if (operation.requestBody !== undefined) kept.requestBody = requestBodyOnly(operation.requestBody)
  kept.responses = Object.fromEntries(
    Object.entries(operation.responses as JsonObject).map(([status, r]) => [
      status,
      responseOnly(r),
    ]),
  )
  return kept
}

const STRIP_COMPONENT: Record<string, (value: Json) => Json> = {
  schemas: schemaOnly,
  parameters: parameterOnly,
  requestBodies: requestBodyOnly,
  responses: responseOnly,
}

/** Copies into `into` every component `value` reaches through `$ref`, transitively. */
function copyReferenced(value: Json, document: JsonObject, into: Record<string, JsonObject>) {
  const pending: Json[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()!
    if (Array.isArray(next)) {
      pending.push(...next)
      continue
    }
    if (!isObject(next)) continue
    const ref = next.$ref
    if (typeof ref === 'string') {
      const match = /^#\/components\/([^/]+)\/([^/]+)$/.exec(ref)
      if (match === null) throw new Error(`unsupported $ref ${ref}`)
      const [, kind, name] = match as unknown as [string, string, string]
      const strip = STRIP_COMPONENT[kind]
      if (strip === undefined) throw new Error(`unsupported component kind in ${ref}`)
      const section = (into[kind] ??= {})
      if (section[name] === undefined) {
        const found = ((document.components as JsonObject)[kind] as JsonObject)[name]
        if (found === undefined) throw new Error(`dangling $ref ${ref}`)
        section[name] = strip(found)
        pending.push(section[name])
      }
    }
    pending.push(...Object.values(next))
  }
}

/** Keys in order at every level, so the file changes only where the document did. */
function sorted(value: Json): Json {
  if (Array.isArray(value)) return value.map(sorted)
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sorted(value[key]!)]),
  )
}

function subsetOf(
  document: JsonObject,
  served: { method: string; route: string }[],
  commit: string,
): JsonObject {
  const paths = document.paths as Record<string, JsonObject>
  const routes: RouteMatch[] = served.map(({ method, route }) => {
    const path = documentPath(route, method, paths)
    return path === undefined ? { method, route } : { method, route, path }
  })
  const kept: Record<string, JsonObject> = {}
  for (const { method, path } of routes) {
    if (path === undefined) continue
    const verb = method.toLowerCase()
    ;(kept[path] ??= {})[verb] = operationOnly(paths[path]!, verb)
  }
  const components: Record<string, JsonObject> = {}
  copyReferenced(kept, document, components)
  const info = document.info as JsonObject
  // Code-unit order, as the keys' sort: the same on every machine, whatever its locale.
  const order = (r: RouteMatch) => `${r.route} ${r.method}`
  const byRoute = (a: RouteMatch, b: RouteMatch) => (order(a) < order(b) ? -1 : 1)
  return sorted({
    openapi: document.openapi!,
    info: {
      title: `${String(info.title)} (subset for Zone Workbench's routes)`,
      version: info.version!,
      license: info.license!,
      'x-source': { repository: SOURCE, commit, file: 'openapi.json' },
    },
    paths: kept,
    components,
    'x-routes': routes.filter((r) => r.path !== undefined).sort(byRoute) as unknown as Json,
    'x-undocumented-routes': routes
      .filter((r) => r.path === undefined)
      .sort(byRoute) as unknown as Json,
  }) as JsonObject
}

async function main(argv: string[]) {
  const [file, commit] = argv
  if (file === undefined || commit === undefined || !/^[0-9a-f]{40}$/.test(commit)) {
    throw new Error('usage: openapi-subset.ts <openapi.json> <commit hash it was read from>')
  }
  const document = JSON.parse(readFileSync(file, 'utf8')) as JsonObject
  const subset = subsetOf(document, await servedRoutes(), commit)
  // As `prettier --check .` (npm run lint) wants it, so a regenerated file needs no second step.
  const options = { ...(await resolveConfig(SUBSET_FILE)), filepath: SUBSET_FILE }
  writeFileSync(SUBSET_FILE, await format(JSON.stringify(subset), options))
  const routes = subset['x-routes'] as Json[]
  const missing = subset['x-undocumented-routes'] as Json[]
  console.log(
    `${SUBSET_FILE}: ${routes.length} routes described, ${missing.length} not in the document`,
  )
}

await main(process.argv.slice(2))
