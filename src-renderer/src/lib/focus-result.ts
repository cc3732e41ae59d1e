// Where focus goes after an action changes what is on screen: to its result (the new record, the
// record that took a deleted one's place), never to <body>, which would send a keyboard or screen
// reader user back to the top of the page. https://www.w3.org/WAI/WCAG21/Understanding/focus-order.html

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
