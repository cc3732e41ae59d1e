// Each screen's name, which the navigation links to and the screen's heading shows, and what the
// screen is for, said under its heading.

import type { Screen } from './router.svelte'

export const SCREEN_TEXT: Record<Screen, { title: string; description: string }> = {
  zones: {
    title: 'Zones',
    description:
      'Each zone is configured and simulated here, offline, before anything reaches production.',
  },
  'managed-rules': {
    title: 'Managed rules',
    description:
      'Deploy managed rulesets and override what their rules do. Deploying and removing a ruleset are saved at once; overrides, the expression and payload logging are a draft, kept for this zone until you save or discard them.',
  },
  'firewall-rules': {
    title: 'Firewall rules',
    description:
      "Rules run by priority (lowest first; rules without one run last). Each rule's filter says which requests it acts on. A change is saved when you send it; until then a new or edited rule or filter is a draft, kept for this zone until you save or discard it.",
  },
  migration: {
    title: 'Migration',
    description:
      "Rehearse a zone's move from WAF managed rules (the previous product) to managed rulesets, with the API calls you will make in production. The move cannot be undone.",
  },
  simulator: {
    title: 'Simulator',
    description:
      "Run a request through the zone's firewall rules and managed rules as they are configured now.",
  },
  replay: {
    title: 'Replay',
    description:
      'Replay a traffic file against the zone: one request description per line (NDJSON), or a HAR file exported from a browser.',
  },
  events: {
    title: 'Security events',
    description:
      "What rules did to the requests the Simulator and replays ran with recording on. Events are kept for 30 days, and within the zone's caps: past them the oldest are dropped.",
  },
  expressions: {
    title: 'Expressions',
    description:
      'Write a filter expression and try it on a request. Errors are underlined as you type.',
  },
  history: {
    title: 'History',
    description:
      'Every change to a zone is a point in its history, kept for 30 days and said in words. Compare any point with now to see what differs, line by line, and restore the zone to a point; points that cannot be restored say why, and a restore can be undone.',
  },
  export: {
    title: 'Export',
    description:
      "Take a zone out of the workbench: a bundle to import into another workbench, a Terraform file that adopts the production zone's resources, or a script that makes them through the API.",
  },
  import: {
    title: 'Import',
    description:
      'Bring in a zone exported as a bundle, or a Terraform file into the zone you name. It creates that zone, or replaces the configuration of the zone with that name as one change in its history. You see the changes before anything is written.',
  },
  production: {
    title: 'Production',
    description:
      "Pull a zone from production (or any endpoint that speaks the vendor's v4 API), change it here, then review the plan and apply exactly that change back. Credentials are used for each request and never stored.",
  },
  objects: {
    title: 'Objects',
    description:
      'The stateful objects behind the workbench. Reads only: nothing here changes them.',
  },
  settings: {
    title: 'Settings',
    description: 'Point curl, the official SDK or Terraform at this address instead of production.',
  },
}

/** The window's title: the screen, the zone it is on, and the app. */
export function windowTitle(screen: string, zone: string | null = null): string {
  return [screen, zone, 'Zone Workbench'].filter((part) => part !== null).join(' · ')
}
