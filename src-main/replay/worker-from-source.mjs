// The replay worker run from the sources (tests, tsx): Node 20 does not apply a loader given in a
// worker's execArgv, so tsx is registered here, in the worker, before worker.ts is imported.
// pool.ts names this file when it runs from .ts; the built app runs replay-worker.js instead.
import { register } from 'tsx/esm/api'

register()
await import('./worker.ts')
