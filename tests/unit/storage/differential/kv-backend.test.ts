// The key-value backend against the runtime's in-memory backend (workerd's ActorCache), which
// Miniflare runs for ephemeral objects: what a transaction() shows, and to whom, before it commits.
import { afterAll, describe, expect, it } from 'vitest'
import { open } from '../temp-storage'
import { runOperations } from './interpreter.mjs'
import { MiniflareOracle, type Operation } from './miniflare-oracle'

const oracle = new MiniflareOracle('ephemeral')
afterAll(() => oracle.dispose())

let sequence = 0
async function expectSameAsRuntime(operations: Operation[]): Promise<void> {
  const theirs = await oracle.run(`kv-backend-${++sequence}`, operations)
  const ours = await runOperations(await open('kv'), operations)
  expect(ours).toStrictEqual(theirs.results)
}

const FAR_FUTURE = 4102444800000

describe('transaction() on the key-value backend', () => {
  it('shows its writes through txn only, until it commits', () =>
    expectSameAsRuntime([
      { kind: 'putEntries', entries: ['a', 'b', 'c', 'd'].map((k) => [k, `stored ${k}`]) },
      {
        kind: 'transaction',
        operations: [
          { kind: 'put', key: 'b', value: 'txn b' },
          { kind: 'put', key: 'e', value: 'txn e' },
          { kind: 'delete', key: 'c' },
          { kind: 'delete', key: 'c' },
          { kind: 'delete', key: ['a', 'zz'] },
          { kind: 'get', key: 'b' },
          { kind: 'get', key: ['a', 'b', 'c', 'e'] },
          // With a limit, the runtime's in-memory backend may return more pairs than the limit
          // (DEVIATIONS.md); transactions.test.ts checks limits here.
          { kind: 'list' },
          { kind: 'list', options: { reverse: true } },
          { kind: 'list', options: { start: 'b', end: 'e' } },
          { kind: 'list', options: { prefix: 'e' } },
          { kind: 'onStorage', operation: { kind: 'get', key: ['a', 'b', 'c', 'e'] } },
          { kind: 'onStorage', operation: { kind: 'list' } },
          { kind: 'onStorage', operation: { kind: 'put', key: 'outside', value: 1 } },
          { kind: 'get', key: 'outside' },
        ],
      },
      { kind: 'list' },
    ]))

  it('keeps nothing of a rolled-back or failed transaction, but keeps writes made outside it', () =>
    expectSameAsRuntime([
      { kind: 'put', key: 'kept', value: 1 },
      {
        kind: 'transaction',
        rollback: true,
        operations: [
          { kind: 'put', key: 'inside', value: 1 },
          { kind: 'delete', key: 'kept' },
          { kind: 'onStorage', operation: { kind: 'put', key: 'outside', value: 2 } },
        ],
      },
      {
        kind: 'transaction',
        fail: true,
        operations: [
          { kind: 'put', key: 'failed', value: 1 },
          { kind: 'onStorage', operation: { kind: 'deleteAll' } },
          { kind: 'onStorage', operation: { kind: 'put', key: 'after deleteAll', value: 3 } },
        ],
      },
      { kind: 'list' },
    ]))

  it('sets and reads its alarm through txn', () =>
    expectSameAsRuntime([
      { kind: 'setAlarm', time: FAR_FUTURE },
      {
        kind: 'transaction',
        operations: [
          { kind: 'deleteAlarm' },
          { kind: 'getAlarm' },
          { kind: 'onStorage', operation: { kind: 'getAlarm' } },
          { kind: 'setAlarm', time: FAR_FUTURE + 1000 },
          { kind: 'getAlarm' },
        ],
      },
      { kind: 'getAlarm' },
      {
        kind: 'transaction',
        rollback: true,
        operations: [{ kind: 'deleteAlarm' }],
      },
      { kind: 'getAlarm' },
    ]))
})
