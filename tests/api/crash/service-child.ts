// The service as a child process to be killed: started on the data dir it is given, on a free
// port, printing what its start-up check repaired and then `ready <origin>`. The crash suite
// bundles this file with esbuild (harness.ts) so that each of its many starts costs what the
// shipped application's does.

import { createService } from '../../../src-main/service'
import { CRASH_CREDENTIALS } from './credentials'

const dataDir = process.argv[2]
if (dataDir === undefined) throw new Error('usage: service-child <data dir>')
const service = await createService({
  dataDir,
  api: { credentials: CRASH_CREDENTIALS, port: 0 },
  shell: 'headless',
})
const origin = await service.listen()
for (const repair of service.repairs) console.log(`repaired ${repair}`)
console.log(`ready ${origin}`)
