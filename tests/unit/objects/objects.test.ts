import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  ObjectNamespace,
  type AlarmInvocationInfo,
  type ObjectContext,
} from '../../../src-main/objects'
import { FakeClock, settle } from './fake-clock'

const root = mkdtempSync(join(tmpdir(), 'objects-test-'))
const namespaces: Array<ObjectNamespace<unknown, unknown>> = []
afterEach(async () => {
  for (const ns of namespaces.splice(0)) await ns.close()
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const T0 = Date.UTC(2026, 0, 1)
let folder = 0

function namespace<Instance>(
  objectClass: new (ctx: ObjectContext, env: unknown) => Instance,
  clock: FakeClock,
  directory = join(root, `ns-${++folder}`),
) {
  const ns = new ObjectNamespace({ directory, objectClass, env: {}, clock, random: () => 0 })
  namespaces.push(ns as ObjectNamespace<unknown, unknown>)
  return ns
}

class Counter {
  readonly runs: AlarmInvocationInfo[] = []
  readonly alarmsSeenInHandler: Array<number | null> = []
  failuresLeft = 0
  constructor(readonly ctx: ObjectContext) {}
  async increment(): Promise<number> {
    const value = ((await this.ctx.storage.get('n')) as number | undefined) ?? 0
    await this.ctx.storage.put('n', value + 1)
    return value + 1
  }
  async alarm(info: AlarmInvocationInfo): Promise<void> {
    this.runs.push(info)
    this.alarmsSeenInHandler.push(await this.ctx.storage.getAlarm())
    if (this.failuresLeft-- > 0) throw new Error('handler failed')
  }
}

class WithoutAlarm {
  constructor(readonly ctx: ObjectContext) {}
}

describe('object namespace', () => {
  it('gives one live instance per id and delivers read-modify-writes one at a time', async () => {
    const ns = namespace(Counter, new FakeClock(T0))
    const id = ns.idFromName('a')
    const results = await Promise.all(
      Array.from({ length: 5 }, () => ns.call(id, (c) => c.increment())),
    )
    expect(results.sort()).toEqual([1, 2, 3, 4, 5])
    expect(await ns.call(id, (c) => c.ctx.id.toString())).toMatch(/^[0-9a-f]{64}$/)
    expect(await ns.call(ns.idFromName('b'), (c) => c.increment())).toBe(1)
  })

  it('restarts an aborted object with a new instance, discarding unflushed writes', async () => {
    const ns = namespace(Counter, new FakeClock(T0))
    const id = ns.idFromName('a')
    await ns.call(id, (c) => c.increment())
    const first = await ns.call(id, (c) => c)
    const error = await ns
      .call(id, async (c) => {
        void c.ctx.storage.put('n', 100)
        c.ctx.abort('reset please')
        return c.ctx.storage.get('n')
      })
      .catch((e: Error & { durableObjectReset?: boolean }) => e)
    expect(error).toMatchObject({ message: 'reset please', durableObjectReset: true })
    const second = await ns.call(id, (c) => c)
    expect(second).not.toBe(first)
    expect(await ns.call(id, (c) => c.ctx.storage.get('n'))).toBe(1)
  })

  it('refuses setAlarm on a class without alarm()', async () => {
    const ns = namespace(WithoutAlarm, new FakeClock(T0))
    await expect(
      ns.call(ns.idFromName('a'), (o) => o.ctx.storage.setAlarm(T0 + 10)),
    ).rejects.toThrow(
      'Your Durable Object class must have an alarm() handler in order to call setAlarm()',
    )
  })
})

describe('erasing an object', () => {
  it('resets the live instance, removes its files and history, and starts afresh', async () => {
    const clock = new FakeClock(T0)
    const directory = join(root, 'erase')
    const ns = namespace(Counter, clock, directory)
    const id = ns.idFromName('zone')
    const other = ns.idFromName('other')
    await ns.call(id, (c) => c.increment())
    await ns.call(id, (c) => c.ctx.storage.setAlarm(T0 + 1000))
    await ns.call(other, (c) => c.increment())
    const file = ns.fileOf(id)
    expect(existsSync(`${file}.history`)).toBe(true)
    const inFlight = ns
      .call(id, async (c) => {
        await new Promise((resolve) => setImmediate(resolve))
        return c.ctx.storage.get('n')
      })
      .catch((e) => e)
    await ns.erase(id)
    expect(await inFlight).toMatchObject({
      message: 'This Durable Object was erased.',
      durableObjectReset: true,
    })
    expect(readdirSync(directory).filter((name) => name.startsWith(id.toString()))).toEqual([])
    await clock.advance(5000)
    expect(await ns.call(id, async (c) => [c.runs.length, await c.ctx.storage.getAlarm()])).toEqual(
      [0, null],
    )
    expect(await ns.call(id, (c) => c.increment())).toBe(1)
    expect(await ns.call(other, (c) => c.increment())).toBe(2)
  })

  it('erases an object that is not running, and one that never existed', async () => {
    const ns = namespace(Counter, new FakeClock(T0))
    const id = ns.idFromName('closed')
    await ns.call(id, (c) => c.increment())
    await ns.close()
    const reopened = namespace(Counter, new FakeClock(T0), ns.fileOf(id).replace(/\/[^/]+$/, ''))
    await reopened.erase(id)
    await reopened.erase(reopened.idFromName('never'))
    expect(existsSync(reopened.fileOf(id))).toBe(false)
    expect(await reopened.call(id, (c) => c.increment())).toBe(1)
  })
})

describe('blockConcurrencyWhile()', () => {
  class Blocking {
    constructor(readonly ctx: ObjectContext) {}
    nest(depth: number): Promise<number> {
      return depth === 0
        ? Promise.resolve(0)
        : this.ctx.blockConcurrencyWhile(async () => 1 + (await this.nest(depth - 1)))
    }
  }

  it('holds other calls back, and resets the object when its callback runs 30 s', async () => {
    const clock = new FakeClock(T0)
    const ns = namespace(Counter, clock)
    const id = ns.idFromName('a')
    let finish = (): void => undefined
    const blocked = ns.call(id, (c) =>
      c.ctx.blockConcurrencyWhile(() => new Promise<void>((resolve) => (finish = resolve))),
    )
    const waiting = ns.call(id, (c) => c.increment())
    await clock.advance(29_999)
    finish()
    await blocked
    expect(await waiting).toBe(1)
    const failure = (promise: Promise<unknown>): Promise<unknown> => promise.catch((e) => e)
    const stuck = failure(
      ns.call(id, (c) => c.ctx.blockConcurrencyWhile(() => new Promise(() => {}))),
    )
    const queued = failure(ns.call(id, (c) => c.increment()))
    await clock.advance(30_000)
    const message =
      'A call to blockConcurrencyWhile() in a Durable Object waited for too long. The call was canceled and the Durable Object was reset.'
    expect(await stuck).toMatchObject({ message, durableObjectReset: true })
    expect(await queued).toMatchObject({ message })
    expect(await ns.call(id, (c) => c.increment())).toBe(2)
  })

  it('refuses nesting deeper than 64 calls, resetting the object', async () => {
    const ns = namespace(Blocking, new FakeClock(T0))
    const id = ns.idFromName('a')
    expect(await ns.call(id, (b) => b.nest(64))).toBe(64)
    await expect(ns.call(id, (b) => b.nest(65))).rejects.toMatchObject({
      message: 'blockConcurrencyWhile() calls are nested too deeply.',
      durableObjectReset: true,
    })
    expect(await ns.call(id, (b) => b.nest(1))).toBe(1)
  })
})

describe('alarms', () => {
  it('runs at its time with getAlarm() null meanwhile, then clears', async () => {
    const clock = new FakeClock(T0)
    const ns = namespace(Counter, clock)
    const id = ns.idFromName('a')
    await ns.call(id, (c) => c.ctx.storage.setAlarm(T0 + 1000))
    await settle()
    expect(await ns.call(id, (c) => c.ctx.storage.getAlarm())).toBe(T0 + 1000)
    await clock.advance(999)
    expect(await ns.call(id, (c) => c.runs.length)).toBe(0)
    await clock.advance(1)
    const counter = await ns.call(id, (c) => c)
    expect(counter.runs).toEqual([{ retryCount: 0, isRetry: false, scheduledTime: T0 + 1000 }])
    expect(counter.alarmsSeenInHandler).toEqual([null])
    expect(await ns.call(id, (c) => c.ctx.storage.getAlarm())).toBeNull()
  })

  it('retries a failing handler after 2 s, 4 s, 8 s … at most 6 times, then drops the alarm', async () => {
    const clock = new FakeClock(T0)
    const ns = namespace(Counter, clock)
    const id = ns.idFromName('a')
    await ns.call(id, (c) => {
      c.failuresLeft = 100
      return c.ctx.storage.setAlarm(T0)
    })
    await clock.advance(0)
    const counter = await ns.call(id, (c) => c)
    expect(counter.runs.length).toBe(1)
    expect(await ns.call(id, (c) => c.ctx.storage.getAlarm())).toBe(T0)
    await clock.advance(1999)
    expect(counter.runs.length).toBe(1)
    await clock.advance(1)
    expect(counter.runs[1]).toEqual({ retryCount: 1, isRetry: true, scheduledTime: T0 })
    await clock.advance(4000 + 8000 + 16000 + 32000 + 64000)
    expect(counter.runs.map((r) => r.retryCount)).toEqual([0, 1, 2, 3, 4, 5, 6])
    await clock.advance(1_000_000)
    expect(counter.runs.length).toBe(7)
    expect(await ns.call(id, (c) => c.ctx.storage.getAlarm())).toBeNull()
  })

  it('runs an alarm that fell due while the application was closed when it starts', async () => {
    const clock = new FakeClock(T0)
    const directory = join(root, 'closed')
    const before = namespace(Counter, clock, directory)
    const id = before.idFromName('a')
    await before.call(id, (c) => c.ctx.storage.setAlarm(T0 + 5000))
    await before.close()
    await clock.advance(60_000)
    const after = namespace(Counter, clock, directory)
    await after.startAll()
    await clock.advance(0)
    expect(await after.call(id, (c) => c.runs.map((r) => r.scheduledTime))).toEqual([T0 + 5000])
  })
})
