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
 * Single-byte encodings by the names libxml2 and iconv know them, decoded by TextDecoder: ICU's
 * tables give the same code points as iconv's for each of their bytes, and refuse the same bytes.
 */
const SINGLE_BYTE = new Set([
  'iso-8859-2',
  'iso-8859-3',
  'iso-8859-4',
  'iso-8859-5',
  'iso-8859-6',
  'iso-8859-7',
  'iso-8859-8',
  'iso-8859-10',
  'iso-8859-13',
  'iso-8859-14',
  'iso-8859-15',
  'iso-8859-16',
])

/**
 * Windows-1252 at 0x80-0x9F, as iconv's CP1252 maps it (undefined where it has no character);
 * below and above it is ISO-8859-1. Node's TextDecoder decodes the name as ISO-8859-1 throughout
 * (https://github.com/nodejs/node/issues/56542), so the table is here.
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

/** Other names of the encodings converted here, as iconv accepts them. */
const ALIASES: Record<string, string> = {
  latin1: 'iso-8859-1',
  'latin-1': 'iso-8859-1',
  cp1252: 'windows-1252',
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
  if (name === 'windows-1252') return windows1252(body)
  return SINGLE_BYTE.has(name) ? decoded(body, name) : body
}

function windows1252(bytes: string): string | undefined {
  let text = ''
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes.charCodeAt(i)
    if (byte < 0x80 || byte > 0x9f) text += bytes[i]
    else {
      const code = WINDOWS_1252_HIGH[byte - 0x80]
      if (code === undefined) return undefined
      text += String.fromCharCode(code)
    }
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
