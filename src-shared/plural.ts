/** "change", "changes": a noun in the number of `count`, for sentences shown to people. */
export const nounFor = (count: number, noun: string) => `${noun}${count === 1 ? '' : 's'}`

/** "1 change", "3 changes": a count with its noun. */
export const plural = (count: number, noun: string) => `${count} ${nounFor(count, noun)}`
