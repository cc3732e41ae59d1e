// multiMatch reads the value after each transformation that says it changed it, and ModSecurity's
// transformations each have their own idea of a change (apache2/re_tfns.c of
// https://github.com/owasp-modsecurity/ModSecurity/tree/v2/master).

const isSpaceOrNbsp = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d) || c === 0xa0

/** Whether ModSecurity 2.9's transformation reports a change (apache2/re_tfns.c). */
export function reportsChange(name: string, before: string, after: string): boolean {
  switch (name) {
    case 'cmdline':
    case 'length':
    case 'sha1':
    case 'md5':
    case 'hexencode':
    case 'hexdecode':
      return true
    case 'base64decode':
    case 'base64decodeext':
    case 'base64encode':
      return after.length > 0
  }
  // Each of the others reports a change only where its output differs: a sequence utf8toUnicode
  // made %uHHHH, a run of spaces compressWhitespace squeezed, a length that changed.
  if (after === before) return false
  switch (name) {
    case 'cssdecode':
    case 'jsdecode':
    case 'htmlentitydecode':
    case 'escapeseqdecode':
    case 'trim':
    case 'trimleft':
    case 'trimright':
      return after.length !== before.length
    case 'utf8tounicode':
      // utf8_unicode_inplace_ex() flags a change only for a UTF-8 sequence made %uHHHH, not for a
      // NUL or a bad lead byte it drops.
      return /[\xc0-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf7][\x80-\xbf]{3}/.test(
        before,
      )
    case 'compresswhitespace':
      // Only a run of two or more spaces counts; one tab made a space does not.
      for (let i = 1; i < before.length; i++)
        if (isSpaceOrNbsp(before.charCodeAt(i)) && isSpaceOrNbsp(before.charCodeAt(i - 1)))
          return true
      return false
    default:
      return after !== before
  }
}
