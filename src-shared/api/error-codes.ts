// Every error code the API answers, in one catalogue: its name, its HTTP statuses (the usual one
// first) and what it means. The vendor's codes name where they are seen
// (docs/vendor-behaviour.md#error-codes); the rest are the workbench's own, chosen in the vendor's
// ranges and style where the vendor publishes none. The routes, the zones, the bundles and the
// renderer name a code by its family and name here, never by its number
// (tests/unit/api/error-codes.test.ts checks the sources for numbers outside it).

/** One code of the catalogue. */
export interface ErrorCodeEntry {
  code: number
  /** the HTTP statuses it is answered with, the usual one first */
  statuses: readonly [number, ...number[]]
  /** what it means, in a line */
  meaning: string
  /** where the vendor is seen to send it; absent for the workbench's own */
  source?: string
}

/** A family's codes by name, as the code that throws them names them. */
type CodesOf<T extends Record<string, ErrorCodeEntry>> = { readonly [K in keyof T]: T[K]['code'] }

function codesOf<const T extends Record<string, ErrorCodeEntry>>(entries: T): CodesOf<T> {
  return Object.fromEntries(
    Object.entries(entries).map(([name, entry]) => [name, entry.code]),
  ) as CodesOf<T>
}

const VENDOR_ERRORS = 'docs/vendor-behaviour.md#error-codes'

/** The API's general codes: requests, credentials, routing, zones. */
const api = {
  tooManyRequests: {
    code: 971,
    statuses: [429],
    meaning: 'too many inspector queries waiting to run',
    source: 'https://github.com/cloudflare/workers-sdk/issues/10025',
  },
  forbidden: {
    code: 1000,
    statuses: [403],
    meaning: 'a request from a Host that is not a loopback name, or from another origin',
  },
  invalidRequest: {
    code: 1001,
    statuses: [400, 408, 414],
    meaning:
      'a request the route cannot take: its body, query or path out of schema or bounds, an HTTP request that is not well formed or not received in time, or the global key on a route that takes only a token (`Missing "Authorization" header`)',
    source: 'docs/vendor-behaviour.md#token-verification',
  },
  restoreRefused: {
    code: 1002,
    statuses: [400],
    meaning: "a point of a zone's history that cannot be restored",
  },
  invalidSetting: {
    code: 1004,
    statuses: [400],
    meaning:
      'a plan the workbench does not know, the previous product on a Free zone, or a page rule that is not valid',
  },
  exists: {
    code: 1061,
    statuses: [400],
    meaning: 'a zone whose name or id exists',
    source: 'https://github.com/midl-dev/tezos-on-gke/issues/3',
  },
  invalidZoneName: {
    code: 1099,
    statuses: [400],
    meaning: 'a zone name that is not a valid domain name',
  },
  invalidHeaders: {
    code: 6003,
    statuses: [400, 431],
    meaning: 'request headers that cannot be read, the header at fault in `error_chain`',
    source: VENDOR_ERRORS,
  },
  malformedBody: {
    code: 6007,
    statuses: [400],
    meaning:
      'a body or line that cannot be read: not JSON (or nested too deep), not gzip, or cut short',
    source: 'https://github.com/undefinedplayer/cloudflare-ddns/pull/6',
  },
  bodyTooLarge: {
    code: 6010,
    statuses: [413],
    meaning: "a body over the route's size limit",
  },
  invalidContentHeader: {
    code: 6105,
    statuses: [400],
    meaning:
      'in the `error_chain` of 6003: a Content-Type or Content-Encoding the route does not take',
  },
  invalidAuthorizationHeader: {
    code: 6111,
    statuses: [400],
    meaning: 'in the `error_chain` of 6003: an Authorization header that is not a bearer token',
    source: VENDOR_ERRORS,
  },
  noRoute: {
    code: 7000,
    statuses: [404],
    meaning: 'after 7003: no route for that URI',
    source: VENDOR_ERRORS,
  },
  couldNotRoute: {
    code: 7003,
    statuses: [404],
    meaning: 'an unknown route, or an id in the path that names nothing',
    source: VENDOR_ERRORS,
  },
  missingCredentials: {
    code: 9106,
    statuses: [400],
    meaning: 'a request with neither a token nor a global key (nor, from the UI, a session)',
    source: VENDOR_ERRORS,
  },
  unauthorized: {
    code: 9109,
    statuses: [403],
    meaning:
      'a token refused, or an account id that is well formed but not the workbench’s (`Invalid account identifier`, or on creating a zone in it `Unauthorized to access requested resource`)',
    source: VENDOR_ERRORS,
  },
  authenticationError: {
    code: 10000,
    statuses: [403],
    meaning: 'a global key refused, or a bridge call from an unknown sender',
    source: VENDOR_ERRORS,
  },
  internalError: {
    code: 10001,
    statuses: [500],
    meaning: 'the workbench failed to answer (never a user’s mistake); its log says why',
  },
  noEntrypoint: {
    code: 10003,
    statuses: [404],
    meaning: 'an entry point the phase does not have',
    source: VENDOR_ERRORS,
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** Filters and firewall rules (docs/vendor-behaviour.md#firewall-rules-api). */
const firewall = {
  nothingToDo: {
    code: 10013,
    statuses: [400],
    meaning: 'an empty body: nothing to create or change',
  },
  expressionInvalid: {
    code: 10014,
    statuses: [400],
    meaning: "a filter's expression that does not parse or check",
  },
  filterInUse: { code: 10015, statuses: [400], meaning: 'a filter a firewall rule still uses' },
  unknownId: {
    code: 10016,
    statuses: [400],
    meaning: "an id that no filter or rule of the zone has, or not the path's",
  },
  quotaExceeded: {
    code: 10017,
    statuses: [400],
    meaning: "more firewall rules than the zone's quota (the inline filters are still created)",
  },
  filterReference: {
    code: 10018,
    statuses: [400],
    meaning: 'a firewall rule that names its filter both by id and by expression, or neither',
  },
  productsInvalid: {
    code: 10019,
    statuses: [400],
    meaning: 'products on a rule other than bypass, or a bypass rule without them',
  },
  planRefused: {
    code: 10021,
    statuses: [400],
    meaning: 'the `log` action on a plan other than Enterprise',
  },
  duplicate: {
    code: 10102,
    statuses: [400],
    meaning: 'a filter whose expression another filter has (`meta.id` names it)',
    source: VENDOR_ERRORS,
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** Rulesets, their rules and entry points (docs/vendor-behaviour.md#rulesets-and-phases). */
const rulesets = {
  expressionInvalid: {
    code: 20120,
    statuses: [400],
    meaning: 'a rule expression that does not parse or check',
  },
  actionInvalid: { code: 20121, statuses: [400], meaning: 'an action the phase does not allow' },
  parametersInvalid: {
    code: 20122,
    statuses: [400],
    meaning: "action parameters that do not fit the rule's action",
  },
  targetMissing: {
    code: 20123,
    statuses: [400],
    meaning: 'an executed ruleset that does not exist',
  },
  deployedTwice: {
    code: 20124,
    statuses: [400],
    meaning: 'a managed ruleset deployed twice in one zone',
  },
  expressionBlank: {
    code: 20125,
    statuses: [400],
    meaning: 'a blank expression',
    source: VENDOR_ERRORS,
  },
  overrideInvalid: {
    code: 20126,
    statuses: [400],
    meaning: 'an override of an unknown rule or tag, or an action the ruleset does not allow',
  },
  publicKeyInvalid: {
    code: 20127,
    statuses: [400],
    meaning: 'a payload-logging key that is not valid',
  },
  positionInvalid: {
    code: 20128,
    statuses: [400],
    meaning: 'a rule position that names no rule of the ruleset',
  },
  managedReadOnly: { code: 20129, statuses: [400], meaning: 'a change to a managed ruleset' },
  inUse: { code: 20130, statuses: [400], meaning: 'a ruleset or version another rule executes' },
  immutableField: {
    code: 20131,
    statuses: [400],
    meaning: "a change of a ruleset's name, kind or phase that the vendor refuses",
  },
  managedDeploymentRefused: {
    code: 20132,
    statuses: [400],
    meaning:
      'a managed ruleset deployed, other than by the migration, in a zone on the previous product',
  },
  duplicateRuleId: {
    code: 20133,
    statuses: [400],
    meaning: 'a rule id given twice, or given to a new rule',
  },
  entrypointExists: {
    code: 20217,
    statuses: [400],
    meaning: 'a second entry point in one phase (`source.pointer` `/kind`)',
    source: 'https://github.com/cloudflare/terraform-provider-cloudflare/issues/2004',
  },
  kindRefused: { code: 20218, statuses: [400], meaning: 'a ruleset kind the route does not take' },
} as const satisfies Record<string, ErrorCodeEntry>

/** The migration off the previous product (docs/vendor-behaviour.md#migration-api). */
const migration = {
  incompatible: { code: 10301, statuses: [400], meaning: 'a zone the migration cannot take' },
  tooManyFirewallRules: {
    code: 10302,
    statuses: [400],
    meaning: 'more than 200 firewall rules to migrate',
  },
  expressionTooLong: {
    code: 10303,
    statuses: [400],
    meaning: 'an expression over 4 KB to migrate',
  },
  validationNotAllowed: {
    code: 10304,
    statuses: [400],
    meaning: 'validation mode on a plan other than Enterprise',
  },
  alreadyMigrating: { code: 10305, statuses: [400], meaning: 'a migration underway or done' },
  nothingToMigrate: {
    code: 10306,
    statuses: [400],
    meaning: 'a zone that never ran the previous product',
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** The previous product's settings (docs/vendor-behaviour.md#previous-waf-api). */
const previousWaf = {
  onlyAnomalyPackages: {
    code: 1027,
    statuses: [400],
    meaning: 'a package setting on a package that is not an anomaly package',
    source: 'https://github.com/cloudflare/terraform-provider-cloudflare/issues/723',
  },
  migrated: {
    code: 10400,
    statuses: [400],
    meaning: 'the previous product, once the zone has migrated or if it never ran it',
  },
  ruleMode: { code: 10404, statuses: [400], meaning: "a mode the rule's kind does not have" },
  overrideInvalid: {
    code: 10405,
    statuses: [400],
    meaning: 'a URI-based override that is not valid',
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** Page rules (docs/vendor-behaviour.md#page-rules): the vendor publishes no codes for them. */
const pageRules = {
  invalid: api.invalidSetting,
  quota: { code: 1005, statuses: [400], meaning: "more page rules than the zone's plan allows" },
} as const satisfies Record<string, ErrorCodeEntry>

/** Bundles and their Terraform and curl forms: the vendor has no such operation. */
const bundles = {
  unknownFormat: {
    code: 10500,
    statuses: [400],
    meaning: 'an export format the workbench does not write',
  },
  notABundle: {
    code: 10501,
    statuses: [400],
    meaning: 'not a bundle, or a version this workbench does not read',
  },
  schema: { code: 10502, statuses: [400], meaning: "a document that breaks the bundle's schema" },
  conflict: {
    code: 10503,
    statuses: [400],
    meaning:
      'a bundle that cannot become this zone: another WAF product, or a migration that stands elsewhere',
  },
  terraform: {
    code: 10504,
    statuses: [400],
    meaning: 'a Terraform file that cannot be read: its syntax, or a value that is not literal',
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** Pull, plan and apply against a remote API: the vendor has no such operation. */
const remote = {
  target: {
    code: 10510,
    statuses: [400],
    meaning: 'a base_url or credentials that cannot be used (`source.pointer` names which)',
  },
  unreachable: { code: 10511, statuses: [400], meaning: 'the remote could not be reached' },
  notEnvelope: {
    code: 10512,
    statuses: [400],
    meaning: "an answer that is not the vendor's envelope (a base_url that is not the API's root)",
  },
  refused: {
    code: 10513,
    statuses: [400],
    meaning: 'a read the remote refused, its status and errors in the message and `meta`',
  },
  zoneNotFound: { code: 10514, statuses: [400], meaning: 'no such zone on the remote' },
  applyFailed: {
    code: 10515,
    statuses: [400],
    meaning: 'an apply stopped at a call the remote refused',
  },
} as const satisfies Record<string, ErrorCodeEntry>

/** Reading a replay's input (src-main/replay): the vendor has no replay. */
const replay = {
  formatUnknown: {
    code: 10520,
    statuses: [400],
    meaning:
      'an input whose first line is in none of the formats a replay reads, and no format named',
  },
  formatInvalid: { code: 10521, statuses: [400], meaning: 'a format name a replay does not read' },
  lineTooLong: {
    code: 10522,
    statuses: [400],
    meaning: 'a line, or a HAR entry, larger than a replay reads at once',
  },
} as const satisfies Record<string, ErrorCodeEntry>

export const API_ERRORS = codesOf(api)
export const FIREWALL_ERRORS = codesOf(firewall)
export const RULESET_ERRORS = codesOf(rulesets)
export const MIGRATION_ERRORS = codesOf(migration)
export const PREVIOUS_WAF_ERRORS = codesOf(previousWaf)
export const PAGE_RULE_ERRORS = codesOf(pageRules)
export const BUNDLE_ERRORS = codesOf(bundles)
export const REMOTE_ERRORS = codesOf(remote)
export const REPLAY_ERRORS = codesOf(replay)

/** The catalogue by family, then by name. */
export const ERROR_CATALOGUE = {
  api,
  firewall,
  rulesets,
  migration,
  previousWaf,
  pageRules,
  bundles,
  remote,
  replay,
} as const satisfies Record<string, Record<string, ErrorCodeEntry>>

/**
 * The codes of the vendor's success messages (an envelope's `messages`, not its `errors`), with
 * their text. The vendor numbers them in the same space as its errors (10000 is also
 * `Authentication error`), so they are kept apart from the catalogue above.
 */
export const API_MESSAGES = {
  tokenValid: {
    code: 10000,
    message: 'This API Token is valid and active',
    source: 'docs/vendor-behaviour.md#token-verification',
  },
} as const
