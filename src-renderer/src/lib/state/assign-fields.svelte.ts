// A screen's state taken up from a plain record of the same names (a draft kept between visits, a
// saved request). Svelte's `$state` class fields are accessors, so assigning runs each one's
// setter (https://svelte.dev/docs/svelte/$state#Classes); what is set is a copy, so editing the
// state never edits the record it came from.

/** Sets each field of `fields` on `target`. */
export function assignFields<T extends object>(target: T, fields: Partial<T>): void {
  Object.assign(target, $state.snapshot(fields))
}
