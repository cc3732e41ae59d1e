// Macro texts (`%{tx.name}`, `%{rule.id}`, `%{request_headers.host}`): setvar names and values
// and operator parameters, cut once into text and references and expanded per request by the
// interpreter (interpreter.ts).

/** A `%{collection.key}` reference of a macro text. */
export interface MacroReference {
  /** upper case */
  collection: string
  /** lower case: ModSecurity names variables without case */
  key: string
}

/** Macro texts (setvar names and values, operator parameters) cut into text and references. */
const templates = new Map<string, (string | MacroReference)[]>()

export function templateOf(text: string): (string | MacroReference)[] {
  let parts = templates.get(text)
  if (parts === undefined) {
    parts = []
    let last = 0
    for (const m of text.matchAll(/%\{([^}]+)\}/g)) {
      if (m.index > last) parts.push(text.slice(last, m.index))
      const spec = m[1]!
      const dot = spec.indexOf('.')
      parts.push({
        collection: (dot < 0 ? spec : spec.slice(0, dot)).toUpperCase(),
        key: dot < 0 ? '' : spec.slice(dot + 1).toLowerCase(),
      })
      last = m.index + m[0].length
    }
    if (last < text.length) parts.push(text.slice(last))
    templates.set(text, parts)
  }
  return parts
}
