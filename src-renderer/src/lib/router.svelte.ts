// Hash routing (Electron loads the page from file://, which has no history fallback). The route
// carries the screen, and on a zone screen the zone and the screen's step or selection
// (`#/zones/<id>/migration/review`), so a reload, back and forward and a copied link open the same
// place. Leaving a screen or zone that holds unsaved changes asks first.

import { parseRoute, routeHref, type Route, type Screen } from './route'

export { routeHref, SCREENS, type Screen } from './route'

/** What a screen with unsaved changes tells the router, so that leaving it asks first. */
export interface UnsavedChanges {
  readonly dirty: boolean
  discard(): void
}

class Router {
  route = $state.raw<Route>(parseRoute(location.hash))
  readonly screen = $derived(this.route.screen)
  readonly zoneId = $derived(this.route.zoneId)
  /** The address the user asked for while the screen holds unsaved changes. */
  pending = $state<string | null>(null)
  private unsaved: UnsavedChanges | null = null
  private hash = location.hash

  constructor() {
    window.addEventListener('hashchange', () => this.follow())
    // Reloading or closing the window asks too: https://developer.mozilla.org/en-US/docs/Web/API/Window/beforeunload_event
    window.addEventListener('beforeunload', (event) => {
      if (this.unsaved?.dirty) event.preventDefault()
    })
  }

  private follow(): void {
    const next = parseRoute(location.hash)
    // the same screen without a zone stays on the zone open (ZoneChoice.load)
    const otherZone = next.zoneId !== null && next.zoneId !== this.route.zoneId
    const leaves = next.screen !== this.route.screen || otherZone
    if (leaves && this.unsaved?.dirty) {
      this.pending = location.hash
      history.replaceState(history.state, '', this.hash)
      return
    }
    this.hash = location.hash
    this.route = next
  }

  /** Registers the screen's unsaved changes; answers the function that unregisters them. */
  protect(unsaved: UnsavedChanges): () => void {
    this.unsaved = unsaved
    return () => {
      if (this.unsaved === unsaved) this.unsaved = null
    }
  }

  /** Leaves for the address asked for, discarding the unsaved changes. */
  leave(): void {
    const target = this.pending
    this.pending = null
    if (target === null) return
    this.unsaved?.discard()
    location.hash = target
  }

  stay(): void {
    this.pending = null
  }

  go(screen: Screen, zoneId: string | null = null, step: string | null = null): void {
    location.hash = routeHref(screen, zoneId, step)
  }

  /**
   * Writes where the screen is into the address, without a new entry in the history; never over an
   * address the router has not followed yet. Back and forward change the address first and tell of
   * it later, in a hashchange event of its own
   * (https://html.spec.whatwg.org/multipage/browsing-the-web.html#updating-the-document): a screen
   * finishing its opening in between would otherwise write itself over the entry gone back to.
   */
  replace(screen: Screen, zoneId: string | null, step: string | null): void {
    if (location.hash !== this.hash) return
    const hash = routeHref(screen, zoneId, step)
    if (hash === this.hash) return
    history.replaceState(history.state, '', hash)
    this.hash = hash
    this.route = parseRoute(hash)
  }
}

export const router = new Router()
