// An XML body converted to UTF-8 as libxml2 converts it before ModSecurity's XML collection is
// read (parserInternals.c: xmlDetectCharEncoding, xmlSwitchEncoding; libxml2 2.9 hands other
// encodings to iconv). The encoding is the byte order mark's, else the XML declaration's, else
// UTF-8; a byte the encoding does not have is an error, which refuses the document.

import { toUint8Array, utf8Bytes } from '@shared/expression'

const UTF8_BOM = '\xef\xbb\xbf'
const UTF16LE_BOM = '\xff\xfe'
const UTF16BE_BOM = '\xfe\xff'
/** `<?` in UTF-16 without a byte order mark, which libxml2 reads as UTF-16 too */
const UTF16LE_START = '<\x00?\x00'
const UTF16BE_START = '\x00<\x00?'

/** `<?xml … encoding="name"` at the start of the document (https://www.w3.org/TR/xml/#NT-EncodingDecl) */
const ENCODING_DECLARATION = /^<\?xml\s[^>]*?\bencoding\s*=\s*["']([A-Za-z][\w.-]*)["']/

/**
 * Windows-1252 at 0x80-0x9F, as iconv's CP1252 maps it (undefined where it has no character);
 * TextDecoder decodes the name as ISO-8859-1 throughout
 * (https://github.com/nodejs/node/issues/56542).
 */
const WINDOWS_1252_HIGH = [
  0x20ac,
  undefined,
  0x201a,
  0x0192,
  0x201e,
  0x2026,
  0x2020,
  0x2021,
  0x02c6,
  0x2030,
  0x0160,
  0x2039,
  0x0152,
  undefined,
  0x017d,
  undefined,
  undefined,
  0x2018,
  0x2019,
  0x201c,
  0x201d,
  0x2022,
  0x2013,
  0x2014,
  0x02dc,
  0x2122,
  0x0161,
  0x203a,
  0x0153,
  undefined,
  0x017e,
  0x0178,
]

/** The bytes an encoding has no character for. */
const lacking = (...bytes: number[]) => Object.fromEntries(bytes.map((byte) => [byte, undefined]))

/**
 * Single-byte encodings by the names libxml2 and iconv know them: each byte is TextDecoder's code
 * point, but where glibc's iconv says otherwise (every table checked byte by byte against it): its
 * code point, or undefined where it has no character (TextDecoder gives the C1 control of the same
 * number), which refuses the document as a byte TextDecoder refuses does.
 */
const SINGLE_BYTE: ReadonlyMap<string, Readonly<Record<number, number | undefined>>> = new Map([
  ['iso-8859-2', {}],
  ['iso-8859-3', {}],
  ['iso-8859-4', {}],
  ['iso-8859-5', {}],
  ['iso-8859-6', {}],
  ['iso-8859-7', {}],
  ['iso-8859-8', {}],
  ['iso-8859-10', {}],
  ['iso-8859-13', {}],
  ['iso-8859-14', {}],
  ['iso-8859-15', {}],
  ['iso-8859-16', {}],
  ['windows-1250', lacking(0x81, 0x83, 0x88, 0x90, 0x98)],
  ['windows-1251', lacking(0x98)],
  ['windows-1252', Object.fromEntries(WINDOWS_1252_HIGH.map((code, i) => [0x80 + i, code]))],
  [
    'windows-1253',
    lacking(
      0x81,
      0x88,
      0x8a,
      0x8c,
      0x8d,
      0x8e,
      0x8f,
      0x90,
      0x98,
      0x9a,
      0x9c,
      0x9d,
      0x9e,
      0x9f,
      0xaa,
    ),
  ],
  ['windows-1254', lacking(0x81, 0x8d, 0x8e, 0x8f, 0x90, 0x9d, 0x9e)],
  ['windows-1255', lacking(0x81, 0x8a, 0x8c, 0x8d, 0x8e, 0x8f, 0x90, 0x9a, 0x9c, 0x9d, 0x9e, 0x9f)],
  ['windows-1256', {}],
  ['windows-1257', lacking(0x81, 0x83, 0x88, 0x8a, 0x8c, 0x90, 0x98, 0x9a, 0x9c, 0x9f)],
  ['windows-1258', lacking(0x81, 0x8a, 0x8d, 0x8e, 0x8f, 0x90, 0x9a, 0x9d, 0x9e)],
  ['koi8-r', {}],
  ['koi8-u', {}],
  // ICU's IBM866 has IBM's graphic controls where iconv keeps ASCII's.
  ['ibm866', { 0x1a: 0x1a, 0x1c: 0x1c, 0x7f: 0x7f }],
  ['macintosh', { 0xc6: 0x0394, 0xf0: 0xe01e }],
])

/** Other names of the encodings converted here, as iconv accepts them. */
const ALIASES: Record<string, string> = {
  latin1: 'iso-8859-1',
  'latin-1': 'iso-8859-1',
  ascii: 'us-ascii',
  cp1250: 'windows-1250',
  cp1251: 'windows-1251',
  cp1252: 'windows-1252',
  cp1253: 'windows-1253',
  cp1254: 'windows-1254',
  cp1255: 'windows-1255',
  cp1256: 'windows-1256',
  cp1257: 'windows-1257',
  cp1258: 'windows-1258',
  cp866: 'ibm866',
  mac: 'macintosh',
  latin2: 'iso-8859-2',
  latin3: 'iso-8859-3',
  latin4: 'iso-8859-4',
  latin9: 'iso-8859-15',
}

/** The document as UTF-8 bytes (a binary string), or undefined when libxml2 would refuse it. */
export function xmlAsUtf8(raw: string): string | undefined {
  // UTF-16 is decoded before the declaration is read, and a declaration in it changes nothing.
  if (raw.startsWith(UTF16LE_BOM)) return decoded(raw.slice(2), 'utf-16le')
  if (raw.startsWith(UTF16BE_BOM)) return decoded(raw.slice(2), 'utf-16be')
  if (raw.startsWith(UTF16LE_START)) return decoded(raw, 'utf-16le')
  if (raw.startsWith(UTF16BE_START)) return decoded(raw, 'utf-16be')
  // A UTF-8 byte order mark is no part of the document, and a declaration after it still counts.
  const body = raw.startsWith(UTF8_BOM) ? raw.slice(UTF8_BOM.length) : raw
  const declared = ENCODING_DECLARATION.exec(body)?.[1]?.toLowerCase()
  if (declared === undefined) return body
  const name = ALIASES[declared] ?? declared.replace(/^iso[_-]?8859[_-]?/, 'iso-8859-')
  // ISO-8859-1 is each byte's own code point (WHATWG's decoder for the name is windows-1252's).
  if (name === 'iso-8859-1') return utf8Bytes(body)
  // ASCII has no byte above 0x7f.
  if (name === 'us-ascii') return /[\x80-\xff]/.test(body) ? undefined : body
  return SINGLE_BYTE.has(name) ? fromSingleByte(body, name) : body
}

/** Each byte's code point in a single-byte encoding, undefined for those it lacks; made once. */
const tables = new Map<string, (number | undefined)[]>()
function tableOf(name: string): (number | undefined)[] {
  let table = tables.get(name)
  if (table === undefined) {
    const decoder = new TextDecoder(name, { fatal: true })
    const differing = SINGLE_BYTE.get(name)!
    table = Array.from({ length: 256 }, (_, byte) => {
      if (byte in differing) return differing[byte]
      try {
        return decoder.decode(Uint8Array.of(byte)).codePointAt(0)
      } catch {
        return undefined
      }
    })
    tables.set(name, table)
  }
  return table
}

/** The bytes in a single-byte encoding written as UTF-8; undefined for a byte it lacks. */
function fromSingleByte(bytes: string, name: string): string | undefined {
  const table = tableOf(name)
  let text = ''
  for (let i = 0; i < bytes.length; i++) {
    const code = table[bytes.charCodeAt(i)]
    if (code === undefined) return undefined
    text += String.fromCharCode(code)
  }
  return utf8Bytes(text)
}

/** The bytes decoded from an encoding and written as UTF-8; undefined for bytes it refuses. */
function decoded(bytes: string, encoding: string): string | undefined {
  try {
    return utf8Bytes(new TextDecoder(encoding, { fatal: true }).decode(toUint8Array(bytes)))
  } catch {
    return undefined
  }
}
