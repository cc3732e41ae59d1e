/// <reference types="svelte" />
import type { Bridge } from '@shared/bridge'

declare global {
  interface Window {
    /** Provided by the Electron preload; absent in the headless shell, which uses HTTP. */
    workbench?: Bridge
  }
}
