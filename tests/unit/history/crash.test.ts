import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { openSession, tempDatabase, type Session } from './session'

let file: string
let cleanup: () => void
let session: Session | null = null

beforeEach(() => ({ file, cleanup } = tempDatabase()))
afterEach(() => {
  session?.close()
  cleanup()
})

/** Starts the writer and kills it with SIGKILL once it has reported `commits` commits. */
function killWriterAfter(commits: number): Promise<number> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'crash-writer.ts'), file],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let output = ''
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      if (output.split('\n').length > commits) child.kill('SIGKILL')
    })
    child.on('error', reject)
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed:\n${output}`))
      const reported = output.split('\n').filter((line) => line !== '')
      resolve(Number(reported.at(-1)))
    })
  })
}

const rowCount = (s: Session): number =>
  s.db.prepare('SELECT count(*) FROM t').pluck().get() as number

it('loses no committed point when the process is killed between commit and checkpoint', async () => {
  const lastReported = await killWriterAfter(120 + Math.floor(Math.random() * 60))
  session = openSession(file, { now: Date.now })
  const committed = rowCount(session)
  expect(committed).toBeGreaterThanOrEqual(lastReported)

  // history start, CREATE TABLE, then one point per row, newest first
  const points = session.history.list()
  expect(points).toHaveLength(committed + 2)
  const rows = [committed, lastReported - 1, 1 + Math.floor(Math.random() * (lastReported - 1))]
  for (const target of rows) {
    const bookmark = points[committed - target]?.bookmark
    if (bookmark === undefined) throw new Error(`no point for row ${target}`)
    session.history.scheduleRestore(bookmark)
    session.close()
    session = openSession(file, { now: Date.now })
    expect(rowCount(session)).toBe(target)
    expect(session.db.pragma('integrity_check', { simple: true })).toBe('ok')
  }
})
