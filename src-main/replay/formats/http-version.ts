/**
 * An HTTP version as the vendor's `http.request.version` names it (`HTTP/1.1`, `HTTP/2`,
 * `HTTP/3`), from the spellings logs use: nginx writes `HTTP/2.0`, a HAR `h2` or `http/2.0`.
 */
export function httpVersionOf(version: string | undefined): string | undefined {
  if (version === undefined || version === '') return undefined
  const v = version.toLowerCase()
  if (v === 'h2' || v.startsWith('http/2')) return 'HTTP/2'
  if (v === 'h3' || v.startsWith('http/3')) return 'HTTP/3'
  return version.toUpperCase()
}
