// `npx zone-workbench <command> …` (bin/zone-workbench.mjs runs this, built to out/main/cli.js):
// the bundle and remote operations of the API from a shell, against the running service of the
// data dir or, when it is not running, the data dir itself (cli/workbench.ts). Exit status 0 when
// done, 1 on an error (the API's messages on stderr), 2 from `plan --detailed-exitcode` when
// changes are pending.

import { resolve } from 'node:path'
import type { Writable } from 'node:stream'
import { parseArgs } from 'node:util'
import { defaultDataDir } from '../headless'
import { ApiRefusal, COMMANDS, EXIT, UsageError, type Invocation } from './commands'
import { lazyWorkbench, openWorkbench } from './workbench'

const COMMON_OPTIONS = {
  'data-dir': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const

function usage(): string {
  const lines = Object.entries(COMMANDS).map(
    ([, command]) => `  zone-workbench ${command.usage}\n      ${command.summary}`,
  )
  return [
    'Usage:',
    ...lines,
    'Every command takes --data-dir DIR (else ZONE_WORKBENCH_DATA_DIR, else the default data dir)',
    'and --json (the API answer itself). A remote reads CLOUDFLARE_BASE_URL, CLOUDFLARE_API_TOKEN',
    '(or CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY) when the flags do not name them.',
  ].join('\n')
}

export interface CliIo {
  env: NodeJS.ProcessEnv
  stdout(text: string): void
  stderr(text: string): void
  /** the input a command reads (`replay`'s requests); the process's stdin when not given */
  stdin?: AsyncIterable<Uint8Array>
  /** stdout as a stream a command writes much to, heeding its back-pressure */
  output?: Writable
}

const processIo: CliIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}

/** Runs one command line; resolves to its exit status. */
export async function runCli(argv: string[], io: CliIo = processIo): Promise<number> {
  const [name, ...rest] = argv
  const command = name === undefined ? undefined : COMMANDS[name]
  if (command === undefined) {
    const help = name === undefined || name === '--help' || name === '-h'
    if (help) io.stdout(`${usage()}\n`)
    else io.stderr(`Unknown command ${name}\n${usage()}\n`)
    return help ? EXIT.ok : EXIT.error
  }
  let parsed
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...COMMON_OPTIONS, ...command.options },
      allowPositionals: true,
      strict: true,
    })
  } catch (error) {
    io.stderr(`${(error as Error).message}\nUsage: zone-workbench ${command.usage}\n`)
    return EXIT.error
  }
  const { values, positionals } = parsed
  const unexpected = positionals.slice(command.operands.length)
  if (unexpected.length > 0) {
    io.stderr(
      `Unexpected argument ${unexpected.join(' ')}\nUsage: zone-workbench ${command.usage}\n`,
    )
    return EXIT.error
  }
  if (values.help === true) {
    io.stdout(`Usage: zone-workbench ${command.usage}\n  ${command.summary}\n`)
    return EXIT.ok
  }
  const json = values.json === true
  const dataDir =
    typeof values['data-dir'] === 'string' ? resolve(values['data-dir']) : defaultDataDir(io.env)
  let workbench
  try {
    workbench = command.standalone === true ? lazyWorkbench(dataDir) : await openWorkbench(dataDir)
  } catch (error) {
    io.stderr(`${(error as Error).message}\n`)
    return EXIT.error
  }
  const invocation: Invocation = {
    values,
    positionals,
    workbench,
    dataDir,
    stdin: io.stdin ?? process.stdin,
    output: io.output ?? process.stdout,
    json,
    env: io.env,
    stdout: (line) => io.stdout(`${line}\n`),
    write: io.stdout,
    stderr: (line) => io.stderr(`${line}\n`),
  }
  try {
    return await command.run(invocation)
  } catch (error) {
    if (error instanceof ApiRefusal) {
      if (json) invocation.stdout(JSON.stringify(error.envelope))
      invocation.stderr(error.message)
      return EXIT.error
    }
    if (error instanceof UsageError) {
      invocation.stderr(`${error.message}\nUsage: zone-workbench ${command.usage}`)
      return EXIT.error
    }
    invocation.stderr((error as Error).message)
    return EXIT.error
  } finally {
    await workbench.close()
  }
}
