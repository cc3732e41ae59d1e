/// <reference types="svelte" />
import type { BridgeTransport } from '@shared/bridge'
import type { ShellMenu } from '@shared/shell-menu'

declare global {
  interface Window {
    /** Provided by the Electron preload; absent in the headless shell, which uses HTTP. */
    workbench?: BridgeTransport
    /** The Electron shell's File menu events, from the same preload. */
    workbenchMenu?: ShellMenu
  }
}
