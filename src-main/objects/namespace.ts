// A namespace of objects of one class: one live instance per id, each with its own SQLite file
// `<directory>/<id>.sqlite`, started on first use and restarted after a reset.
import { createHash, randomBytes } from 'node:crypto'
import { mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { eraseStorageFiles, type Backend, type Storage } from '../storage'
import { systemClock, type Clock } from './clock'
import { ObjectHost, resetError, type ObjectClass, type ObjectId } from './object-host'

export interface NamespaceOptions<Env, Instance> {
  /** Folder holding one database file per object. */
  directory: string
  objectClass: ObjectClass<Env, Instance>
  env: Env
  /** 'sql' (default) or 'kv'. */
  backend?: Backend
  /**
   * Keep point-in-time history (default true). Off for objects that hold bulk reference data
   * rather than configuration, whose every import would otherwise be archived.
   */
  history?: boolean
  clock?: Clock
  /** Source of alarm-retry jitter, in [0, 1). */
  random?: () => number
}

const ID_PATTERN = /^[0-9a-f]{64}$/
const FILE_SUFFIX = '.sqlite'
const ERASED = 'This Durable Object was erased.'

export class ObjectNamespace<Env, Instance> {
  private readonly hosts = new Map<string, Promise<ObjectHost<Env, Instance>>>()
  /** Erasures in progress, by id: the object may not start again until its files are gone. */
  private readonly erasures = new Map<string, Promise<void>>()
  private closed = false

  constructor(private readonly options: NamespaceOptions<Env, Instance>) {
    mkdirSync(options.directory, { recursive: true })
  }

  /** The id an object with this name always has. */
  idFromName(name: string): ObjectId {
    const hex = createHash('sha256').update(name).digest('hex')
    return { name, toString: () => hex }
  }

  newUniqueId(): ObjectId {
    const hex = randomBytes(32).toString('hex')
    return { toString: () => hex }
  }

  idFromString(hex: string): ObjectId {
    if (!ID_PATTERN.test(hex))
      throw new TypeError(`Invalid object id "${hex}": expected 64 lowercase hex digits.`)
    return { toString: () => hex }
  }

  /** The database file of object `id`. */
  fileOf(id: ObjectId): string {
    return join(this.options.directory, `${id.toString()}${FILE_SUFFIX}`)
  }

  /** Ids of every object that has a database file. */
  ids(): ObjectId[] {
    return readdirSync(this.options.directory)
      .filter((file) => file.endsWith(FILE_SUFFIX))
      .map((file) => file.slice(0, -FILE_SUFFIX.length))
      .filter((hex) => ID_PATTERN.test(hex))
      .map((hex) => this.idFromString(hex))
  }

  /**
   * Delivers a call to the object `id`, starting it if needed. Calls enter one at a time through
   * the object's input gate, and the result is released when the writes it made are durable.
   */
  async call<Result>(
    id: ObjectId,
    invoke: (instance: Instance) => Result | Promise<Result>,
  ): Promise<Awaited<Result>> {
    const host = await this.host(id)
    return host.call(invoke)
  }

  /** Runs `look` against the storage of object `id` (see ObjectHost.inspect). */
  async inspect<Result>(
    id: ObjectId,
    look: (storage: Storage) => Result | Promise<Result>,
  ): Promise<Awaited<Result>> {
    const host = await this.host(id)
    return host.inspect(look)
  }

  /**
   * Erases object `id`: a live instance is reset (calls in flight fail with "This Durable Object
   * was erased."), its alarm stops, and its database file, WAL and history are removed. A later
   * call starts a new, empty object.
   */
  async erase(id: ObjectId): Promise<void> {
    const key = id.toString()
    const previous = this.erasures.get(key) ?? Promise.resolve()
    const erasure = previous.then(async () => {
      const host = this.hosts.get(key)
      this.hosts.delete(key)
      if (host !== undefined) (await host.catch(() => null))?.destroy(resetError(ERASED))
      eraseStorageFiles(this.fileOf(id))
    })
    this.erasures.set(key, erasure)
    try {
      await erasure
    } finally {
      if (this.erasures.get(key) === erasure) this.erasures.delete(key)
    }
  }

  /** Starts every object that has a file, so alarms that fell due while closed run now. */
  async startAll(): Promise<void> {
    await Promise.all(this.ids().map((id) => this.host(id)))
  }

  /** Commits what is pending and closes every object. */
  async close(): Promise<void> {
    this.closed = true
    const hosts = await Promise.allSettled(this.hosts.values())
    this.hosts.clear()
    for (const host of hosts) if (host.status === 'fulfilled') host.value.close()
  }

  private host(id: ObjectId): Promise<ObjectHost<Env, Instance>> {
    if (this.closed) return Promise.reject(new Error('The object namespace is closed.'))
    const key = id.toString()
    const erasure = this.erasures.get(key)
    if (erasure !== undefined) return erasure.catch(() => undefined).then(() => this.host(id))
    let host = this.hosts.get(key)
    if (host === undefined) {
      const created = new ObjectHost({
        file: this.fileOf(id),
        id,
        backend: this.options.backend ?? 'sql',
        history: this.options.history ?? true,
        objectClass: this.options.objectClass,
        env: this.options.env,
        clock: this.options.clock ?? systemClock,
        random: this.options.random ?? Math.random,
        onReset: () => this.hosts.delete(key),
      })
      host = created.start().then(() => created)
      host.catch(() => this.hosts.delete(key))
      this.hosts.set(key, host)
    }
    return host
  }
}
