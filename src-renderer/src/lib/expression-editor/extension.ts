// CodeMirror 6 support for the Rules language, on the shared tooling: token highlighting,
// completion of fields / functions / operators, and live diagnostics (lint) whose underline
// carries the stable class `zw-expression-error`.

import {
  autocompletion,
  type Completion,
  type CompletionContext,
  type CompletionResult,
} from '@codemirror/autocomplete'
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands'
import { linter, type Diagnostic as LintDiagnostic } from '@codemirror/lint'
import { RangeSetBuilder, type Extension } from '@codemirror/state'
import {
  Decoration,
  EditorView,
  keymap,
  placeholder as placeholderText,
  ViewPlugin,
  type DecorationSet,
  type ViewUpdate,
} from '@codemirror/view'
import {
  completions,
  describedDiagnostics,
  diagnostics,
  tokens,
  type TokenKind,
} from '@shared/expression/tooling'

/** The class on the underline of an error (and on the message line of the component). */
export const ERROR_MARK_CLASS = 'zw-expression-error'

export interface ExpressionExtensionOptions {
  /** the ruleset phase the expression is for (which functions are offered and allowed) */
  readonly phase?: string
  readonly placeholder?: string
  readonly ariaLabel?: string
}

const TOKEN_CLASS: Record<TokenKind, string> = {
  field: 'zw-tok-field',
  function: 'zw-tok-function',
  keyword: 'zw-tok-keyword',
  operator: 'zw-tok-operator',
  string: 'zw-tok-string',
  regex: 'zw-tok-regex',
  number: 'zw-tok-number',
  boolean: 'zw-tok-boolean',
  list: 'zw-tok-list',
  punctuation: 'zw-tok-punctuation',
  unknown: 'zw-tok-unknown',
}

const marks = Object.fromEntries(
  Object.entries(TOKEN_CLASS).map(([kind, cls]) => [
    kind,
    Decoration.mark({ class: cls, attributes: { 'data-token': kind } }),
  ]),
) as Record<TokenKind, Decoration>

function highlight(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>()
  for (const t of tokens(view.state.doc.toString())) {
    if (t.to > t.from) builder.add(t.from, t.to, marks[t.kind])
  }
  return builder.finish()
}

const highlighter = ViewPlugin.fromClass(
  class {
    decorations: DecorationSet
    constructor(view: EditorView) {
      this.decorations = highlight(view)
    }
    update(update: ViewUpdate) {
      if (update.docChanged) this.decorations = highlight(update.view)
    }
  },
  { decorations: (plugin) => plugin.decorations },
)

const COMPLETION_TYPE: Record<string, string> = {
  field: 'variable',
  function: 'function',
  keyword: 'keyword',
  operator: 'operator',
}

function completionSource(phase: string | undefined) {
  return (context: CompletionContext): CompletionResult | null => {
    const result = completions(context.state.doc.toString(), context.pos, phase ? { phase } : {})
    if (result.items.length === 0) return null
    if (result.from === result.to && !context.explicit) {
      // offer after a space or an opening parenthesis, not in the middle of nowhere
      const before = context.state.doc.sliceString(Math.max(0, result.from - 1), result.from)
      if (before !== '' && !/[\s(,!]/.test(before)) return null
    }
    const options: Completion[] = result.items.map((item) => ({
      label: item.label,
      type: COMPLETION_TYPE[item.kind] ?? 'text',
      ...(item.detail ? { detail: item.detail } : {}),
      ...(item.info ? { info: item.info } : {}),
      ...(item.apply ? { apply: item.apply } : {}),
      ...(item.boost ? { boost: Math.min(99, item.boost) } : {}),
    }))
    return { from: result.from, to: result.to, options, validFor: /^[A-Za-z0-9_.]*$/ }
  }
}

function lintSource(phase: string | undefined) {
  return (view: EditorView): LintDiagnostic[] =>
    describedDiagnostics(view.state.doc.toString(), phase ? { phase } : {}).map((d) => ({
      from: d.from,
      to: d.to,
      severity: d.severity,
      message: d.description,
      markClass: d.severity === 'error' ? ERROR_MARK_CLASS : 'zw-expression-warning',
      source: d.code ?? 'expression',
    }))
}

const theme = EditorView.theme({
  '&': {
    fontFamily: 'var(--mono, ui-monospace, monospace)',
    fontSize: '13px',
    border: '1px solid var(--border, #dde3ec)',
    borderRadius: '6px',
    background: 'var(--surface, #fff)',
  },
  '&.cm-focused': { outline: '2px solid var(--accent, #f38020)', outlineOffset: '-1px' },
  '.cm-content': { padding: '6px 2px', minHeight: '1.6em' },
  '.cm-line': { padding: '0 6px' },
  '.zw-tok-field': { color: '#1d4ed8' },
  '.zw-tok-function': { color: '#7c3aed' },
  '.zw-tok-keyword': { color: '#b45309', fontWeight: '600' },
  '.zw-tok-operator': { color: '#b45309' },
  '.zw-tok-string': { color: '#047857' },
  '.zw-tok-regex': { color: '#0f766e' },
  '.zw-tok-number': { color: '#be185d' },
  '.zw-tok-boolean': { color: '#be185d' },
  '.zw-tok-list': { color: '#0369a1', fontStyle: 'italic' },
  '.zw-tok-punctuation': { color: '#64748b' },
  '.zw-tok-unknown': { color: '#c0362c' },
  [`.${ERROR_MARK_CLASS}`]: {
    textDecoration: 'underline wavy #c0362c',
    textUnderlineOffset: '3px',
  },
})

/** Everything the expression editor adds to a CodeMirror view. */
export function expressionExtensions(options: ExpressionExtensionOptions = {}): Extension[] {
  const phase = options.phase
  const extensions: Extension[] = [
    // Undo and redo, and the usual editing keys.
    history(),
    keymap.of([...defaultKeymap, ...historyKeymap]),
    highlighter,
    autocompletion({ override: [completionSource(phase)], activateOnTyping: true, icons: false }),
    linter(lintSource(phase), { delay: 120 }),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({
      'aria-label': options.ariaLabel ?? 'Expression',
      'aria-multiline': 'true',
      spellcheck: 'false',
      autocapitalize: 'off',
      autocorrect: 'off',
    }),
    EditorView.contentAttributes.compute(['doc'], (state) => {
      const invalid = diagnostics(state.doc.toString(), phase ? { phase } : {}).some(
        (d) => d.severity === 'error',
      )
      return { 'aria-invalid': invalid ? 'true' : 'false' }
    }),
    theme,
  ]
  if (options.placeholder) extensions.push(placeholderText(options.placeholder))
  return extensions
}
