// A traffic file run through a route chunk by chunk (see ../replay-chunks): each chunk is posted
// in turn, the answers are added up as they come, the progress is the requests done, and a stop
// the user asks for is honoured between chunks. A refused chunk ends the run with the API's
// messages prefixed by its range of requests; the chunks before it have run. The Replay screen
// and the Migration screen's side-by-side compare are such runs.

import type { ApiMessage } from '@shared/api/envelope'
import { errorMessages } from '../api-error'
import { splitTraffic, type ReplayChunk } from '../replay-chunks'

/** What one run takes: the traffic, the route call for a chunk, and how the answers add up. */
export interface ChunkedRunSteps<Answer, Total> {
  /** the traffic file's text: NDJSON or HAR */
  text: () => string | Promise<string>
  /** the route call for one chunk */
  post: (body: ReplayChunk['body']) => Promise<Answer>
  /** the total before any chunk has answered */
  empty: () => Total
  /** the total with one chunk's answer added */
  add: (total: Total, answer: Answer, chunk: ReplayChunk) => Total
}

/** The requests done out of those in the file. */
export interface ChunkProgress {
  done: number
  total: number
}

export class ChunkedRun<Total extends { requests: number }> {
  running = $state(false)
  progress = $state<ChunkProgress>({ done: 0, total: 0 })
  /** the answers added up so far; null before a run */
  result = $state.raw<Total | null>(null)
  /** set when the user stops a running run; checked between chunks */
  private stopping = false
  stopped = $state(false)
  errors = $state.raw<ApiMessage[]>([])

  /** The run went through, neither stopped nor refused, and the traffic held no request. */
  readonly noRequests = $derived(
    this.result !== null &&
      this.result.requests === 0 &&
      !this.running &&
      !this.stopped &&
      this.errors.length === 0,
  )

  /** Forgets the last run: its result, progress and messages. */
  clear(): void {
    this.result = null
    this.progress = { done: 0, total: 0 }
    this.stopped = false
    this.errors = []
  }

  stop(): void {
    this.stopping = true
  }

  /** Runs the traffic through the route chunk by chunk, the result and progress following it. */
  protected async runChunks<Answer>(steps: ChunkedRunSteps<Answer, Total>): Promise<void> {
    this.running = true
    this.stopping = false
    this.stopped = false
    this.errors = []
    try {
      const chunks = splitTraffic(await steps.text())
      const total = chunks.reduce((sum, chunk) => sum + chunk.count, 0)
      this.progress = { done: 0, total }
      let result = steps.empty()
      this.result = result
      for (const chunk of chunks) {
        if (this.stopping) {
          this.stopped = true
          return
        }
        let answer: Answer
        try {
          answer = await steps.post(chunk.body)
        } catch (error) {
          const range = `Requests ${chunk.first}–${chunk.first + chunk.count - 1}`
          this.errors = errorMessages(error).map((m) => ({
            ...m,
            message: `${range}: ${m.message}`,
          }))
          return
        }
        result = steps.add(result, answer, chunk)
        this.result = result
        this.progress = { done: this.progress.done + chunk.count, total }
      }
    } catch (error) {
      this.errors = errorMessages(error)
    } finally {
      this.running = false
    }
  }
}
