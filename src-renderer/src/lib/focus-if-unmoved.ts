// Work that runs on after its button is pressed (an upload, a job in the service, a switch-over)
// disables the button, which drops focus to <body>; its progress and result take focus as they
// come, unless the user has moved focus meanwhile, as focus moved under them would lose their
// place. https://www.w3.org/WAI/WCAG21/Understanding/focus-order.html

import { tick } from 'svelte'

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
