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

async function runOne(storage, operation) {
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
      const cursor = storage.sql.exec(operation.query, ...(operation.bindings ?? []))
      const rows = cursor.toArray()
      return {
        rows,
        columnNames: cursor.columnNames,
        rowsRead: cursor.rowsRead,
        rowsWritten: cursor.rowsWritten,
      }
    }
    case 'transaction':
      return storage.transaction(async (txn) => {
        const inner = await runOperations(txn, operation.operations)
        if (operation.rollback) txn.rollback()
        if (operation.fail) throw new Error('closure failed')
        return inner
      })
    default:
      throw new Error(`unknown operation ${operation.kind}`)
  }
}

export async function runOperations(storage, operations) {
  const results = []
  for (const operation of operations) {
    try {
      results.push({ ok: await runOne(storage, operation) })
    } catch (error) {
      results.push({ error: { name: error?.name, message: String(error?.message ?? error) } })
    }
  }
  return results
}
