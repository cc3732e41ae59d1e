// Schemes of the open-source engine's own tests (docs/vendor-behaviour.md#parse-errors,
// docs/vendor-behaviour.md#evaluation-vectors), so that its vectors can
// be run unchanged, plus the functions those tests register (echo, lowercase, len).

import {
  arrayOf,
  BUILTIN_FUNCTIONS,
  createScheme,
  defineFunction,
  mapOf,
  type FunctionDefinition,
  type Scheme,
} from '@shared/expression'

const asciiLowerForTests = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase())

const concat = BUILTIN_FUNCTIONS.find((f) => f.name === 'concat') as FunctionDefinition

const echo = defineFunction({
  name: 'echo',
  signature: 'echo(Bytes field [, Int literal [, Int literal]]): Bytes',
  summary: 'returns its first argument',
  params: [{ kind: 'Field', types: ['Bytes'] }],
  optional: [
    { kind: 'Literal', types: ['Int'] },
    { kind: 'Literal', types: ['Int'] },
  ],
  returns: 'Bytes',
  implement: () => (args) => args[0],
})

const lowercase = defineFunction({
  name: 'lowercase',
  signature: 'lowercase(Bytes field): Bytes',
  summary: 'ASCII lower-case',
  params: [{ kind: 'Field', types: ['Bytes'] }],
  returns: 'Bytes',
  implement: () => (args) => asciiLowerForTests(args[0] as string),
})

const len = defineFunction({
  name: 'len',
  signature: 'len(Bytes field): Int',
  summary: 'byte length',
  params: [{ kind: 'Field', types: ['Bytes'] }],
  returns: 'Int',
  implement: () => (args) => (args[0] as string).length,
})

/** The union of the schemes used by wirefilter's parse-error and evaluation tests. */
export const OSS_SCHEME: Scheme = createScheme({
  fields: {
    num: 'Int',
    str: 'Bytes',
    bool: 'Bool',
    ip: 'Ip',
    arr: arrayOf('Bool'),
    str_arr: arrayOf('Bytes'),
    str_map: mapOf('Bytes'),
    t: 'Bool',
    f: 'Bool',
    at: arrayOf('Bool'),
    af: arrayOf('Bool'),
    empty_bool_array: arrayOf('Bool'),
    'http.cookies': arrayOf('Bytes'),
    'http.headers': mapOf('Bytes'),
    'http.host': 'Bytes',
    'ip.addr': 'Ip',
    ssl: 'Bool',
    'tcp.port': 'Int',
    'tcp.ports': arrayOf('Int'),
    'array.of.bool': arrayOf('Bool'),
    'map.bool.arr': mapOf(arrayOf('Bool')),
    'map.bytes.arr': mapOf(arrayOf('Bytes')),
    'http.parts': arrayOf(arrayOf('Bytes')),
    'tcp.srcport': 'Int',
    'tcp.dstport': 'Int',
    'udp.dstport': 'Int',
    'tcp.flags.syn': 'Bool',
  },
  functions: [concat, echo, lowercase, len],
})
