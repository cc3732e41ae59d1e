import { describe, expect, it } from 'vitest'
import { open } from './temp-storage'

describe('sql.exec', () => {
  it('runs several statements, with bindings and cursor belonging to the last', async () => {
    const { sql } = await open('sql')
    const cursor = sql.exec(
      'CREATE TABLE m (x INTEGER); INSERT INTO m VALUES (1); SELECT count(*) AS n, ? AS b FROM m',
      'bound',
    )
    expect(cursor.toArray()).toEqual([{ n: 1, b: 'bound' }])
    expect(() => sql.exec('SELECT ?; SELECT 1', 1)).toThrow(
      'When executing multiple SQL statements in a single call, only the last statement can have parameters.',
    )
    expect(() => sql.exec(' ; ')).toThrow('SQL code did not contain a statement.')
  })

  it('reads exec(undefined) as a query, and refuses exec() without one', async () => {
    const { sql } = await open('sql')
    expect(() => sql.exec(undefined)).toThrow('near "undefined": syntax error')
    expect(() => (sql.exec as () => unknown)()).toThrow(
      new TypeError(
        "Failed to execute 'exec' on 'SqlStorage': parameter 1 is not of type 'JsString'.",
      ),
    )
  })

  it('runs the statements before one with parameters, then refuses it, every time', async () => {
    const { sql } = await open('sql')
    sql.exec('CREATE TABLE n (x)')
    const script = 'INSERT INTO n VALUES (1); INSERT INTO n VALUES (?); INSERT INTO n VALUES (3)'
    for (let i = 0; i < 2; i++) {
      expect(() => sql.exec(script, 2)).toThrow(
        'When executing multiple SQL statements in a single call, only the last statement can have parameters.',
      )
    }
    expect(sql.exec('SELECT count(*) AS n FROM n').one()).toEqual({ n: 2 })
  })

  it('compiles a repeated query again once the schema changed', async () => {
    const { sql } = await open('sql')
    sql.exec('CREATE TABLE s (a)')
    sql.exec('INSERT INTO s VALUES (1)')
    const select = 'SELECT * FROM s'
    expect(sql.exec(select).toArray()).toEqual([{ a: 1 }])
    sql.exec('ALTER TABLE s ADD COLUMN b DEFAULT 2')
    expect(sql.exec(select).toArray()).toEqual([{ a: 1, b: 2 }])
    sql.exec('DROP TABLE s; CREATE TABLE s (c)')
    expect(sql.exec(select).columnNames).toEqual(['c'])
  })

  it('splits around literals, comments and trigger bodies', async () => {
    const { sql } = await open('sql')
    sql.exec(`CREATE TABLE t (v TEXT); CREATE TABLE log (n INTEGER);
      CREATE TRIGGER t_log AFTER INSERT ON t BEGIN
        INSERT INTO log VALUES (CASE WHEN new.v = ';' THEN 1 ELSE 2 END);
      END; -- a comment; with a semicolon
      INSERT INTO t VALUES (';'); /* another ; */ INSERT INTO t VALUES ('x')`)
    expect(sql.exec('SELECT n FROM log ORDER BY rowid').raw().toArray()).toEqual([[1], [2]])
  })

  it('iterates one shared position through next(), raw() and toArray()', async () => {
    const { sql } = await open('sql')
    sql.exec('CREATE TABLE c (x); INSERT INTO c VALUES (1), (2), (3)')
    const cursor = sql.exec('SELECT x FROM c ORDER BY x')
    expect([
      cursor.raw().next().value,
      cursor.next().value,
      cursor.toArray(),
      cursor.next(),
    ]).toEqual([[1], { x: 2 }, [{ x: 3 }], { done: true }])
    expect('value' in cursor.next()).toBe(false)
    expect([...sql.exec('SELECT x FROM c ORDER BY x')]).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }])
  })

  it('maps values and bindings as the runtime does', async () => {
    const { sql } = await open('sql')
    const row = sql
      .exec(
        "SELECT 123 AS i, x'ff' AS b, typeof(?) AS t, ? AS s, ? AS n, 1 AS a, 2 AS a",
        1,
        true,
        undefined,
      )
      .one()
    expect(row).toEqual({
      i: 123,
      b: new Uint8Array([255]).buffer,
      t: 'real',
      s: 'true',
      n: null,
      a: 2,
    })
    expect(sql.exec('SELECT 1 AS a, 2 AS a').columnNames).toEqual(['a', 'a'])
    expect(() => sql.exec('SELECT ?', 1n)).toThrow(
      new TypeError('Cannot convert a BigInt value to a number'),
    )
    expect(() => sql.exec('SELECT ?, ?', 1)).toThrow(
      'Wrong number of parameter bindings for SQL query.',
    )
    expect(sql.exec('SELECT "foo" AS col').one()).toEqual({ col: 'foo' })
  })

  it('throws from one() on zero or several rows', async () => {
    const { sql } = await open('sql')
    expect(() => sql.exec('SELECT 1 WHERE 0').one()).toThrow(
      'Expected exactly one result from SQL query, but got no results.',
    )
    expect(() => sql.exec('VALUES (1), (2)').one()).toThrow(
      'Expected exactly one result from SQL query, but got multiple results.',
    )
  })

  it('counts rows read and written like the runtime', async () => {
    const { sql } = await open('sql')
    sql.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); CREATE INDEX tv ON t (v)')
    const insert = sql.exec("INSERT INTO t (v) VALUES ('a'), ('b'), ('c')")
    expect([insert.rowsRead, insert.rowsWritten]).toEqual([0, 6])
    const select = sql.exec('SELECT * FROM t')
    select.toArray()
    expect(select.rowsRead).toBe(3)
    const update = sql.exec("UPDATE t SET v = 'z'")
    expect([update.rowsRead, update.rowsWritten]).toEqual([3, 6])
    const remove = sql.exec('DELETE FROM t')
    expect([remove.rowsRead, remove.rowsWritten]).toEqual([0, 3])
  })

  it('enforces the authorizer rules with the runtime messages', async () => {
    const storage = await open('sql')
    await storage.put('k', 1)
    const { sql } = storage
    expect(() => sql.exec('BEGIN')).toThrow(
      /^To execute a transaction, please use the state.storage.transaction\(\)/,
    )
    expect(() => sql.exec('SAVEPOINT s')).toThrow(/^To execute a transaction/)
    expect(() => sql.exec('SELECT * FROM _cf_KV')).toThrow(
      'access to _cf_KV.key is prohibited: SQLITE_AUTH',
    )
    expect(() => sql.exec('DELETE FROM _CF_kv')).toThrow('not authorized: SQLITE_AUTH')
    expect(() => sql.exec('SELECT sqlite_version()')).toThrow(
      'not authorized to use function: sqlite_version at offset 7: SQLITE_ERROR',
    )
    expect(() => sql.exec('PRAGMA journal_mode')).toThrow('not authorized: SQLITE_AUTH')
    expect(() => sql.exec('PRAGMA data_version = 5')).toThrow('not authorized: SQLITE_AUTH')
    expect(() => sql.exec('CREATE TEMP TABLE x (a)')).toThrow('not authorized: SQLITE_AUTH')
    expect(() => sql.exec("ATTACH 'x.db' AS x")).toThrow('not authorized: SQLITE_AUTH')
    expect(() => sql.exec('CREATE VIRTUAL TABLE v USING fts4 (a)')).toThrow(
      'not authorized: SQLITE_AUTH',
    )
    expect(sql.exec('PRAGMA foreign_keys').one()).toEqual({ foreign_keys: 1 })
    sql.exec('PRAGMA foreign_keys = off')
    sql.exec('CREATE VIRTUAL TABLE docs USING fts5 (body)')
    expect(
      sql
        .exec('PRAGMA table_list')
        .toArray()
        .map((r) => r.name),
    ).toContain('_cf_KV')
  })

  it('formats SQLite errors as the runtime does', async () => {
    const { sql } = await open('sql')
    sql.exec('CREATE TABLE m (x UNIQUE)')
    sql.exec('INSERT INTO m VALUES (1)')
    expect(() => sql.exec('SELEC 1')).toThrow(
      'near "SELEC": syntax error at offset 0: SQLITE_ERROR',
    )
    expect(() => sql.exec('SELECT * FROM nope')).toThrow('no such table: nope: SQLITE_ERROR')
    expect(() => sql.exec('INSERT INTO m VALUES (2), (1)')).toThrow(
      'UNIQUE constraint failed: m.x: SQLITE_CONSTRAINT (extended: SQLITE_CONSTRAINT_UNIQUE)',
    )
    expect(sql.exec('SELECT x FROM m').toArray()).toEqual([{ x: 1 }])
  })

  it('reports the database size without free pages, 4096 after deleteAll', async () => {
    const storage = await open('sql')
    storage.sql.exec('CREATE TABLE big (x)')
    const withTable = storage.sql.databaseSize
    storage.sql.exec('DROP TABLE big')
    expect(storage.sql.databaseSize).toBe(withTable - 4096)
    storage.sql.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)')
    await storage.put('k', 1)
    await storage.deleteAll()
    expect(storage.sql.databaseSize).toBe(4096)
    expect(() => storage.sql.exec('SELECT * FROM t')).toThrow('no such table: t: SQLITE_ERROR')
  })
})
