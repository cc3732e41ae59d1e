// Where focus goes after an action changes what is on screen: to its result (the new record, the
// record that took a deleted one's place), never to <body>, which would send a keyboard or screen
// reader user back to the top of the page. Work that runs on after its button is pressed (an
// upload, a job in the service, a switch-over) disables the button, which drops focus to <body>;
// its progress and result take focus as they come, unless the user has moved focus meanwhile.
// https://www.w3.org/WAI/WCAG21/Understanding/focus-order.html

import { tick } from 'svelte'

/** The record that takes a removed one's place: the one now at its index, else the last one. */
export function recordAfterRemoval<T>(records: readonly T[], index: number): T | undefined {
  return records[index] ?? records.at(-1)
}

/**
 * Once the page shows the change, focuses what `find` answers, else the element `fallback`
 * selects (by default the screen's heading).
 */
export async function focusResult(
  find: () => HTMLElement | null | undefined,
  fallback = 'main h1',
): Promise<void> {
  await tick()
  ;(find() ?? document.querySelector<HTMLElement>(fallback))?.focus()
}

/**
 * Whether focus is still where the action left it: on <body>, on a control now disabled, or on
 * one of `left` (the control that started it, where its progress took focus).
 */
export function focusUnmoved(left: readonly (Element | null)[] = []): boolean {
  const active = document.activeElement
  if (active === null || active === document.body || left.includes(active)) return true
  return active instanceof HTMLButtonElement && active.disabled
}

/** Once the page shows the change, focuses what `find` answers, if focus has not moved. */
export async function focusIfUnmoved(
  find: () => HTMLElement | null | undefined,
  left: readonly (Element | null)[] = [],
): Promise<void> {
  await tick()
  if (focusUnmoved(left)) find()?.focus()
}
