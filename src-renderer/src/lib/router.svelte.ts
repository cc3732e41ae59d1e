// Hash routing (Electron loads the page from file://, which has no history fallback).

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

function screenFromHash(): Screen {
  const name = location.hash.replace(/^#\/?/, '').split('/')[0]
  return (SCREENS as readonly string[]).includes(name ?? '') ? (name as Screen) : 'zones'
}

class Router {
  screen = $state<Screen>(screenFromHash())

  constructor() {
    window.addEventListener('hashchange', () => (this.screen = screenFromHash()))
  }

  go(screen: Screen): void {
    location.hash = `#/${screen}`
  }
}

export const router = new Router()
