// The settings page rules can apply, as `GET /zones/{zone_id}/pagerules/settings` (deprecated,
// with the rest of the Page Rules API) lists them: the vendor's OpenAPI document types the answer
// as an array of objects and gives this list as its example (`zones_settings` in
// https://github.com/cloudflare/api-schemas, openapi.json), each setting once (the example
// repeats `browser_check`), to which `waf`, the Web Application Firewall on/off setting the
// previous WAF reads, is added.

interface PageRuleSettingProperty {
  name: string
  type: string
  [detail: string]: unknown
}

export interface PageRuleSetting {
  id: string
  properties: PageRuleSettingProperty[]
}

const toggle = (id: string): PageRuleSetting => ({
  id,
  properties: [{ type: 'toggle', name: 'value' }],
})
const noValue = (id: string): PageRuleSetting => ({ id, properties: [] })
const range = (id: string, values: number[]): PageRuleSetting => ({
  id,
  properties: [
    {
      type: 'range',
      max: Math.max(...values),
      min: Math.min(...values),
      name: 'value',
      suggested_values: values,
    },
  ],
})
/** A property whose value is one of `choices`. */
const pickOne = (
  type: 'select' | 'choice',
  choices: (string | number)[],
  name = 'value',
): PageRuleSettingProperty => ({ type, choices, multiple: false, name })

/** A part of the cache key and what may be said of it. */
const keyField = (
  name: string,
  choices: string[],
  allowEmpty: boolean,
  multiple: boolean,
): PageRuleSettingProperty => ({ type: 'select', allowEmpty, choices, multiple, name })

export const PAGE_RULE_SETTINGS: readonly PageRuleSetting[] = [
  range(
    'browser_cache_ttl',
    [
      1800, 3600, 7200, 10800, 14400, 18000, 28800, 43200, 57600, 72000, 86400, 172800, 259200,
      345600, 432000, 691200, 1382400, 2073600, 2678400, 5356800, 16070400, 31536000,
    ],
  ),
  toggle('browser_check'),
  {
    id: 'cache_key_fields',
    properties: [
      {
        type: 'object',
        name: 'value',
        properties: [
          keyField('query_string', ['include', 'exclude'], true, false),
          keyField('header', ['include', 'exclude', 'check_presence'], true, true),
          keyField('host', ['resolved'], false, true),
          keyField('cookie', ['include', 'check_presence'], true, true),
          keyField('user', ['device_type', 'geo', 'lang'], false, true),
        ],
      },
    ],
  },
  toggle('cache_deception_armor'),
  {
    id: 'cache_level',
    properties: [
      pickOne('select', ['bypass', 'basic', 'simplified', 'aggressive', 'cache_everything']),
    ],
  },
  {
    id: 'cache_ttl_by_status',
    properties: [{ type: 'object', allowEmpty: false, name: 'value' }],
  },
  noValue('disable_apps'),
  noValue('disable_performance'),
  noValue('disable_security'),
  range(
    'edge_cache_ttl',
    [
      7200, 10800, 14400, 18000, 28800, 43200, 57600, 72000, 86400, 172800, 259200, 345600, 432000,
      518400, 604800, 1209600, 2419200,
    ],
  ),
  toggle('email_obfuscation'),
  {
    id: 'forwarding_url',
    properties: [
      pickOne('choice', [301, 302], 'status_code'),
      { type: 'forwardingUrl', name: 'url' },
    ],
  },
  toggle('ip_geolocation'),
  toggle('explicit_cache_control'),
  toggle('rocket_loader'),
  {
    id: 'security_level',
    properties: [pickOne('select', ['essentially_off', 'low', 'medium', 'high', 'under_attack'])],
  },
  toggle('server_side_exclude'),
  {
    id: 'ssl',
    properties: [pickOne('choice', ['off', 'flexible', 'full', 'strict'])],
  },
  toggle('waf'),
]
