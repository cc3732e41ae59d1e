// A transformation leaves a value without the characters it acts on unchanged
// (transformation-scope.ts): the transformation cache skips it on such values.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  classesOf,
  scopedTransformations,
  scopeOf,
} from '../../../src-main/engine/crs/transformation-scope'
import { transformation } from '../../../src-main/engine/crs/transformations'

/** Every byte, a few characters above them, and the sequences the transformations decode. */
const piece = fc.oneof(
  fc.integer({ min: 0, max: 0xff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom('\u0100', '\u0130', '\uff21', 'a', 'Z', '0', '9', ' '),
  fc.constantFrom('%41', '%u0041', '+', '&amp;', '&#65;', '\\x41', '\\n', '/*', '*/', '<!--'),
  fc.constantFrom('-->', '--', '#', './', '../', '//', '\\', '\xc3\xa9', '\0', '\xa0', 'A'),
)
const value = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''))

describe('transformation scopes', () => {
  it.each(scopedTransformations())(
    '%s leaves a value without the classes it acts on unchanged',
    (name) => {
      const fn = transformation(name)
      expect(fn, name).toBeDefined()
      const scope = scopeOf(name)
      fc.assert(
        fc.property(value, (v) => {
          if ((classesOf(v) & scope) === 0) expect(fn!(v)).toBe(v)
        }),
        { numRuns: 3000 },
      )
    },
  )

  it('transformations named nowhere act on any value, plain or empty', () => {
    for (const name of ['base64Decode', 'length', 'md5', 'hexEncode', 'sqlHexDecode']) {
      for (const v of ['', 'word', '__js_function', '0x41'])
        expect(classesOf(v) & scopeOf(name)).not.toBe(0)
    }
  })
})
