// The headless shell's UI session, as Jupyter's notebook server does it
// (https://jupyter-server.readthedocs.io/en/latest/operators/security.html): the UI address
// printed at start carries a secret made for this run; the page that opens it exchanges it for a
// session cookie (HttpOnly, SameSite=Strict, host-only, so only this loopback origin's own pages
// send it) and the secret leaves the address bar. The API token never appears in the page, so a
// local process that can fetch `GET /` learns nothing from it. Sessions live in memory: a restart
// ends them, and the next start prints a new address.

import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

/** The query parameter of the printed UI address that carries the launch secret. */
export const LAUNCH_SECRET_PARAMETER = 'session'

const secret = () => randomBytes(32).toString('base64url')

function sameSecret(given: string, expected: string): boolean {
  const digest = (s: string) => createHash('sha256').update(s).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/** `name=value` pairs of a Cookie header (RFC 6265 §5.4: `; `-separated). */
function cookieValues(headers: IncomingHttpHeaders, name: string): string[] {
  const header = headers.cookie
  if (header === undefined) return []
  return header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair.startsWith(`${name}=`))
    .map((pair) => pair.slice(name.length + 1))
}

export class UiSessions {
  readonly launchSecret = secret()
  private readonly sessions = new Set<string>()

  /**
   * Cookies are shared by every port of a host (RFC 6265 §8.5), so the name carries the port:
   * two workbenches on one machine do not overwrite each other's session.
   */
  constructor(private readonly port: () => number) {}

  private get cookieName(): string {
    return `zone_workbench_session_${this.port()}`
  }

  /** The Set-Cookie value for a new session, when `given` is this run's launch secret. */
  exchange(given: string): string | undefined {
    if (!sameSecret(given, this.launchSecret)) return undefined
    const session = secret()
    this.sessions.add(session)
    return `${this.cookieName}=${session}; Path=/; HttpOnly; SameSite=Strict`
  }

  /** Whether the request carries the cookie of a session this run made. */
  holds(headers: IncomingHttpHeaders): boolean {
    return cookieValues(headers, this.cookieName).some((value) =>
      [...this.sessions].some((session) => sameSecret(value, session)),
    )
  }
}
