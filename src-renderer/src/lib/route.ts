// The app's addresses: `#/<screen>`, and on a zone screen `#/zones/<id>/<screen>[/<step>]`, the
// screen's step or selection after the zone (the router, router.svelte.ts, follows them).

export const SCREENS = [
  'zones',
  'managed-rules',
  'firewall-rules',
  'migration',
  'simulator',
  'replay',
  'events',
  'expressions',
  'history',
  'export',
  'import',
  'production',
  'objects',
  'settings',
] as const
export type Screen = (typeof SCREENS)[number]

export interface Route {
  /** null: the address names no screen */
  screen: Screen | null
  zoneId: string | null
  step: string | null
}

function isScreen(name: string | undefined): name is Screen {
  return (SCREENS as readonly string[]).includes(name ?? '')
}

const NOT_FOUND: Route = { screen: null, zoneId: null, step: null }

export function parseRoute(hash: string): Route {
  let parts: string[]
  try {
    parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent)
  } catch {
    return NOT_FOUND
  }
  const [first, zoneId, screen, step] = parts
  if (parts.length === 1 && (first === '' || isScreen(first))) {
    return { screen: first === '' ? 'zones' : (first as Screen), zoneId: null, step: null }
  }
  const zoneRoute =
    first === 'zones' && zoneId && isScreen(screen) && screen !== 'zones' && parts.length <= 4
  if (zoneRoute) return { screen, zoneId, step: step || null }
  return NOT_FOUND
}

export function routeHref(
  screen: Screen,
  zoneId: string | null = null,
  step: string | null = null,
) {
  if (zoneId === null) return `#/${screen}`
  const tail = step === null ? '' : `/${encodeURIComponent(step)}`
  return `#/zones/${encodeURIComponent(zoneId)}/${screen}${tail}`
}
