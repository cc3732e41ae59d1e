// A form's own check before it sends anything. Its submit button stays enabled, for a disabled one
// cannot say why and a keyboard user does not even reach it: a press with a field that cannot be
// sent as it is sends nothing and answers with a sentence at that field saying what to do, shown
// as the API's refusals are (FieldErrors, named by the field's aria-describedby), and the form
// moves focus to the first such field. From then on each sentence goes as soon as its field is put
// right, until the form is sent. https://www.w3.org/WAI/WCAG21/Understanding/error-identification.html

import type { FieldErrors } from './field-errors'

/** For each field that cannot be sent as it is, what to do; the others are left out or undefined. */
export type FieldProblems<F extends string> = Partial<Record<F, string | undefined>>

export class FormCheck<F extends string> {
  #pressed = $state(false)
  readonly #problems: () => FieldProblems<F>

  /** `problems` reads the form's fields, in the order they are on screen. */
  constructor(problems: () => FieldProblems<F>) {
    this.#problems = problems
  }

  /** The sentences at their fields, once a press has shown them. */
  readonly errors: FieldErrors<F> = $derived.by(() => {
    if (!this.#pressed) return {}
    const errors: FieldErrors<F> = {}
    for (const [field, message] of Object.entries(this.#problems()) as [F, string | undefined][]) {
      if (message !== undefined) errors[field] = [{ code: 0, message }]
    }
    return errors
  })

  /**
   * A press of the form's submit: the first field that cannot be sent, its sentence now shown, or
   * undefined when the form may be sent. A form sent is emptied once done, and its sentences wait
   * for the next press.
   */
  press(): F | undefined {
    this.#pressed = true
    const first = Object.keys(this.errors)[0] as F | undefined
    if (first === undefined) this.#pressed = false
    return first
  }
}
