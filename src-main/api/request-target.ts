// The one place a request's target is normalised, before the router and the credentials check
// both read it: they must agree on which route a request names, or a differently spelled path
// reaches a handler the check never saw (`/%63lient/v4/zones` once answered without a token).
//
// The normal form follows RFC 3986 §6.2.2 (https://www.rfc-editor.org/rfc/rfc3986#section-6.2.2):
//   - an absolute-form target (`GET http://host/path`, RFC 9112 §3.2.2) becomes its path and
//     query, and its authority is kept so the loopback guard can check it as it checks Host;
//   - percent-encoded unreserved characters (letters, digits, `-._~`) are decoded, since they
//     name the same resource either way; reserved ones (`%2F`, `%3F`, …) stay encoded, so `%2F`
//     never becomes a path separator;
//   - runs of slashes become one.
// Dot segments (`.`, `..`, spelled `%2e` or not) are not resolved (RFC 3986 §5.2.4 would): a
// path holding one names nothing and is answered 404 once its credentials are checked. Resolved,
// an id of `%2e%2e` named the resource above it: `DELETE …/filters/%2e%2e` deleted the zone.
// Clients resolve the dot segments they are given before sending (curl, WHATWG URL).
// The query is left exactly as sent.

/** What a request names once normalised. */
export interface RequestTarget {
  /** path and query, e.g. `/client/v4/zones?name=a` */
  url: string
  /** the authority of an absolute-form target (`host[:port]`), else undefined */
  authority?: string
  /** whether the path holds a dot segment, which names nothing */
  dotSegment: boolean
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)(.*)$/is
const ENCODED_UNRESERVED = /%(4[1-9a-f]|5[0-9a]|6[1-9a-f]|7[0-9a]|3[0-9]|2d|2e|5f|7e)/gi

export function normaliseTarget(raw: string): RequestTarget {
  let target = raw
  let authority: string | undefined
  const absolute = ABSOLUTE_FORM.exec(raw)
  if (absolute !== null) {
    authority = (absolute[1] ?? '').replace(/^[^@]*@/, '').toLowerCase()
    target = absolute[2] || '/'
  }
  const queryAt = target.indexOf('?')
  const path = queryAt === -1 ? target : target.slice(0, queryAt)
  const query = queryAt === -1 ? '' : target.slice(queryAt)
  const decoded = path.replace(ENCODED_UNRESERVED, (_match, hex: string) =>
    String.fromCharCode(parseInt(hex, 16)),
  )
  const segments = decoded.split('/').filter((segment) => segment !== '')
  const dotSegment = segments.some((segment) => segment === '.' || segment === '..')
  // A trailing slash names a directory, as the input did.
  const joined = `/${segments.join('/')}`
  const url = (decoded.endsWith('/') && joined !== '/' ? `${joined}/` : joined) + query
  return { url, authority, dotSegment }
}
