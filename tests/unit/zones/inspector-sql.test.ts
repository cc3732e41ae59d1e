// The inspector's allow-list: which SQL the Objects screen may run, read from the statement's
// tokens (comments, case and whitespace as SQLite reads them) before anything runs.

import { describe, expect, it } from 'vitest'
import { ApiError } from '@shared/api/errors'
import { readOnlyStatement } from '../../../src-main/zones/inspector-sql'

function refusal(sql: string): string {
  try {
    readOnlyStatement(sql)
  } catch (error) {
    if (error instanceof ApiError && error.status === 400 && error.code === 1001)
      return error.message
    throw error
  }
  throw new Error(`accepted: ${sql}`)
}

describe('inspector allow-list', () => {
  it.each([
    ['SELECT name FROM zone', 'SELECT name FROM zone'],
    ['  select 1;  ', 'select 1'],
    ['/* why */ -- note\n\tSeLeCt 1 ; ;', 'SeLeCt 1'],
    ['VALUES (1), (2)', 'VALUES (1), (2)'],
    [
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 3',
      'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c LIMIT 3',
    ],
    ['WITH a AS MATERIALIZED (SELECT 1), b AS (VALUES (2)) VALUES (3)', undefined],
    ['EXPLAIN SELECT 1', undefined],
    ['explain query plan select * from zone', undefined],
    ['PRAGMA table_info(zone)', undefined],
    ["pragma main.TABLE_INFO('zone')", undefined],
    ['PRAGMA index_list("zone")', undefined],
    ['PRAGMA compile_options', undefined],
    ['PRAGMA table_list', undefined],
    ['PRAGMA integrity_check(10)', undefined],
    ["SELECT * FROM pragma_table_info('zone')", undefined],
    ["SELECT 'load_extension(x); DELETE FROM zone' AS text", undefined],
  ])('runs %j', (sql, text) => {
    expect(readOnlyStatement(sql)).toBe(text ?? sql)
  })

  it.each([
    ['INSERT INTO zone (name) VALUES (1)', /INSERT is not a SELECT/],
    ['  /* x */ delete from zone', /DELETE is not a SELECT/],
    ['WITH x AS (SELECT 1) DELETE FROM zone', /DELETE is not a SELECT/],
    ['WITH x AS (SELECT 1) INSERT INTO zone SELECT * FROM x', /INSERT is not a SELECT/],
    ['VACUUM', /VACUUM is not a SELECT/],
    ["VACUUM INTO '/tmp/copy.sqlite'", /VACUUM is not a SELECT/],
    ["ATTACH DATABASE '/tmp/x' AS x", /ATTACH is not a SELECT/],
    ['DETACH x', /DETACH is not a SELECT/],
    ['BEGIN', /BEGIN is not a SELECT/],
    ['SELECT 1; SELECT 2', /one statement at a time/],
    ['SELECT 1; DELETE FROM zone', /one statement at a time/],
    ["SELECT load_extension('x')", /load_extension\(\) loads code/],
    ['SELECT LOAD_EXTENSION ("x")', /load_extension\(\) loads code/],
    ['SELECT * FROM pragma_journal_mode', /pragma_journal_mode is not a read-only PRAGMA/],
    ['EXPLAIN DELETE FROM zone', /EXPLAIN explains a SELECT/],
    ['EXPLAIN QUERY PLAN PRAGMA table_info(zone)', /EXPLAIN explains a SELECT/],
    ['PRAGMA wal_autocheckpoint=1', /PRAGMA wal_autocheckpoint is not one that only reports/],
    ['PRAGMA wal_autocheckpoint', /PRAGMA wal_autocheckpoint is not one/],
    ['PRAGMA max_page_count = 1', /PRAGMA max_page_count is not one/],
    ['pragma LOCKING_MODE=normal', /PRAGMA locking_mode is not one/],
    ['PRAGMA journal_size_limit(0)', /PRAGMA journal_size_limit is not one/],
    ['PRAGMA main.hard_heap_limit = 1', /PRAGMA hard_heap_limit is not one/],
    ['PRAGMA user_version = 5', /PRAGMA user_version takes no value/],
    ['PRAGMA user_version(5)', /PRAGMA user_version takes no value/],
    ['PRAGMA table_info = zone', /PRAGMA table_info takes \(name\) only/],
    ['PRAGMA table_info(zone) x', /PRAGMA table_info takes \(name\) only/],
    ['PRAGMA table_info', /PRAGMA table_info needs a name/],
  ])('refuses %j', (sql, why) => {
    const message = refusal(sql)
    expect(message).toMatch(/^Only read-only SQL runs here: /)
    expect(message).toMatch(why)
  })

  it('leaves what is no statement at all to SQLite, whose parser says so in its own words', () => {
    expect(readOnlyStatement('SELEC 1')).toBe('SELEC 1')
    expect(readOnlyStatement('(SELECT 1)')).toBe('(SELECT 1)')
  })

  it('answers an empty query with a 400', () => {
    expect(refusal(' -- nothing\n ;')).toBe('There is no SQL statement to run.')
  })
})
