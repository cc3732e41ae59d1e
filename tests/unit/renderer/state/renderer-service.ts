// The renderer's state classes against a real service: the page's `window.workbench` is the
// service's own bridge, answering outcomes as Electron's IPC does (answerBridgeCall), so a state
// class's calls run through the very corridor a screen's do, and its refusals carry the API's
// codes and pointers. Node has no `localStorage` or `sessionStorage`: the page's are in-memory
// Storages here.

import type { BridgeTransport } from '@shared/bridge'
import { BRIDGE_OPERATIONS } from '@shared/bridge'
import { answerBridgeCall } from '../../../../src-main/bridge'
import { removeDataDir, startService, type Running } from '../../../api/harness'

/** Starts a service and opens the renderer's bridge onto it; call before importing a state class. */
export async function startRendererService(): Promise<Running> {
  const running = await startService()
  const transport = Object.fromEntries(
    BRIDGE_OPERATIONS.map((operation) => [
      operation,
      (input: unknown) => answerBridgeCall(running.service.bridge, operation, input),
    ]),
  ) as unknown as BridgeTransport
  Object.assign(globalThis, {
    window: { workbench: transport },
    localStorage: memoryStorage(),
    sessionStorage: memoryStorage(),
  })
  return running
}

/** The Web Storage interface over a Map (https://html.spec.whatwg.org/multipage/webstorage.html). */
function memoryStorage(): Storage {
  const items = new Map<string, string>()
  return {
    get length() {
      return items.size
    },
    key: (index) => [...items.keys()][index] ?? null,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => void items.set(key, String(value)),
    removeItem: (key) => void items.delete(key),
    clear: () => items.clear(),
  }
}

export async function stopRendererService(running: Running): Promise<void> {
  await running.stop()
  removeDataDir(running.dataDir)
}
