// A screen's unsaved work on one zone, kept until it is saved or discarded. It lives in
// sessionStorage, keyed by screen and zone: it survives a reload and back and forward in the same
// window, as a draft should, but is not shared with another window working on the same zone (two
// windows' drafts of one entry point would overwrite each other) and does not outlive the window,
// so a draft is never reopened days later over a configuration that has moved on. A screen that
// works on no zone (Expressions) keeps one draft, under the zone null.
// https://developer.mozilla.org/en-US/docs/Web/API/Window/sessionStorage

function draftKey(screen: string, zoneId: string | null): string {
  return `zone-workbench:draft:${screen}:${zoneId ?? ''}`
}

/** The draft kept for the zone on that screen, as `keepDraft` wrote it; null when none is. */
export function readDraft<T>(screen: string, zoneId: string | null): T | null {
  const text = sessionStorage.getItem(draftKey(screen, zoneId))
  // written by keepDraft of the same screen only
  return text === null ? null : (JSON.parse(text) as T)
}

export function keepDraft(screen: string, zoneId: string | null, draft: unknown): void {
  sessionStorage.setItem(draftKey(screen, zoneId), JSON.stringify(draft))
}

export function dropDraft(screen: string, zoneId: string | null): void {
  sessionStorage.removeItem(draftKey(screen, zoneId))
}
