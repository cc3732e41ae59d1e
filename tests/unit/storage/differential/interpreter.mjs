// Runs a sequence of storage operations and records each result or error. The very same module
// runs inside Miniflare's Durable Object and against our storage, so both sides interpret a
// sequence identically. Values are rebuilt on each side: what crosses Miniflare's RPC arrives
// altered (arrays become holey, lone surrogates become U+FFFD, empty typed arrays fail), and
// what cannot cross at all is described by markers.

const revive = (value) => {
  if (Array.isArray(value)) {
    const packed = []
    for (const item of value) packed.push(revive(item))
    return packed
  }
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [revive(k), revive(v)]))
  if (value instanceof Set) return new Set([...value].map(revive))
  if (!value || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype)
    return value
  if (value.$function) return () => 1
  if (value.$undefined) return undefined
  if (value.$bytes !== undefined) return new Uint8Array(value.$bytes)
  if (value.$string !== undefined) return 'x'.repeat(value.$string)
  if (value.$key !== undefined) return 'k'.repeat(value.$key)
  if (value.$loneSurrogate !== undefined) return '\uD800' + value.$loneSurrogate
  if (value.$holes !== undefined) {
    const holey = []
    value.$holes.forEach((item, index) => {
      if (item !== null) holey[index] = revive(item)
    })
    holey.length = value.$holes.length
    return holey
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)]))
}

const reviveKey = revive

// `root` is the object's ctx.storage, for operations inside a transaction that bypass `txn`.
async function runOne(storage, operation, root) {
  switch (operation.kind) {
    case 'get':
      return storage.get(reviveKey(operation.key), operation.options)
    case 'put':
      return storage.put(reviveKey(operation.key), revive(operation.value), operation.options)
    case 'putEntries':
      return storage.put(Object.fromEntries(revive(operation.entries).map(([k, v]) => [k, v])))
    case 'delete':
      return storage.delete(reviveKey(operation.key))
    case 'list':
      return storage.list(revive(operation.options))
    case 'deleteAll':
      return storage.deleteAll()
    case 'getAlarm':
      return storage.getAlarm()
    case 'setAlarm':
      return storage.setAlarm(operation.time)
    case 'deleteAlarm':
      return storage.deleteAlarm()
    case 'sql': {
      const bindings = (operation.bindings ?? []).map(revive)
      const cursor = storage.sql.exec(operation.query, ...bindings)
      const rows = cursor.toArray()
      return {
        rows,
        columnNames: cursor.columnNames,
        rowsRead: cursor.rowsRead,
        rowsWritten: cursor.rowsWritten,
      }
    }
    case 'kvGet':
      return storage.kv.get(reviveKey(operation.key))
    case 'kvPut':
      return storage.kv.put(reviveKey(operation.key), revive(operation.value))
    case 'kvDelete':
      return storage.kv.delete(reviveKey(operation.key))
    case 'kvList': {
      const iterator = storage.kv.list(revive(operation.options))
      // `interrupt` starts another listing after that many entries: the first iterator stops.
      const entries = []
      for (const entry of iterator) {
        entries.push(entry)
        if (entries.length === operation.interrupt) {
          if (operation.interruptWith === 'list') await storage.list()
          else storage.kv.list()
        }
      }
      return { entries, tag: Object.prototype.toString.call(iterator) }
    }
    case 'onStorage':
      return runOne(root, operation.operation, root)
    case 'transaction':
      return storage.transaction(async (txn) => {
        const inner = await runOperations(txn, operation.operations, root)
        if (operation.rollback) txn.rollback()
        if (operation.fail) throw new Error('closure failed')
        return inner
      })
    default:
      throw new Error(`unknown operation ${operation.kind}`)
  }
}

export async function runOperations(storage, operations, root = storage) {
  const results = []
  for (const operation of operations) {
    try {
      results.push({ ok: await runOne(storage, operation, root) })
    } catch (error) {
      results.push({ error: { name: error?.name, message: String(error?.message ?? error) } })
    }
  }
  return results
}
