// The key-value limits against the runtime's in-memory backend, the only one of Miniflare's that
// enforces them (docs/vendor-behaviour.md#stateful-object-storage), which the workbench holds both
// of its backends to.
import { afterAll, describe, expect, it } from 'vitest'
import { open } from '../temp-storage'
import { runOperations } from './interpreter.mjs'
import { MiniflareOracle, type Operation } from './miniflare-oracle'

const oracle = new MiniflareOracle('ephemeral')
afterAll(() => oracle.dispose())

const keys = (count: number): string[] => Array.from({ length: count }, (_, i) => `key-${i}`)

const limitOperations: Operation[] = [
  { kind: 'put', key: { $key: 2048 }, value: 1 },
  { kind: 'put', key: { $key: 2049 }, value: 1 },
  { kind: 'get', key: { $key: 2049 } },
  { kind: 'delete', key: { $key: 2049 } },
  { kind: 'put', key: 'string', value: { $string: 131072 } },
  { kind: 'put', key: 'string', value: { $string: 131102 } },
  { kind: 'put', key: 'bytes', value: { $bytes: 131072 } },
  { kind: 'put', key: 'bytes', value: { $bytes: 131172 } },
  {
    kind: 'putEntries',
    entries: [
      ['fine', 1],
      [{ $key: 3000 }, 1],
    ],
  },
  { kind: 'get', key: 'fine' },
  { kind: 'get', key: keys(128) },
  { kind: 'get', key: keys(129) },
  { kind: 'delete', key: [{ $key: 2049 }] },
]

describe.each(['sql', 'kv'] as const)('limits on the %s backend', (backend) => {
  it('match the runtime: same refusals, same messages', async () => {
    const theirs = await oracle.run(`limits-${backend}`, limitOperations)
    const ours = await runOperations(await open(backend), limitOperations)
    expect(ours).toStrictEqual(theirs.results)
  })

  // The workbench allows 128 keys per put and delete as well; local workerd checks only get().
  it('refuse more than 128 keys in put and delete, where the runtime does not', async () => {
    const entries = keys(129).map((key) => [key, 1])
    const operations: Operation[] = [
      { kind: 'putEntries', entries },
      { kind: 'delete', key: keys(129) },
    ]
    const theirs = await oracle.run(`count-${backend}`, operations)
    expect(theirs.results).toStrictEqual([{ ok: undefined }, { ok: 129 }])
    const refusal = {
      error: {
        name: 'RangeError',
        message: 'Maximum number of key value pairs is 128. 129 pairs were provided.',
      },
    }
    expect(await runOperations(await open(backend), operations)).toStrictEqual([refusal, refusal])
  })
})
