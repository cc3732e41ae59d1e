/** "1 change", "3 changes": a count with its noun, for sentences shown to people. */
export const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`
