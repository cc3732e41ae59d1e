// The Rules-language expression editor: a Svelte component and its CodeMirror extensions.
export { default as ExpressionEditor } from './ExpressionEditor.svelte'
export {
  ERROR_MARK_CLASS,
  expressionExtensions,
  type ExpressionExtensionOptions,
} from './extension'
