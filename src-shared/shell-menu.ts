// The Electron shell's File menu, as the renderer receives it: the preload exposes these
// subscriptions (and no `ipcRenderer`) as `window.workbenchMenu`; the headless shell has no menu.

/** A bundle or Terraform file the user chose with File ▸ Import…, read by the main process. */
export interface MenuImportFile {
  name: string
  text: string
}

/** The IPC channels the main process sends the menu's events on. */
export const MENU_CHANNELS = {
  import: 'menu:import',
  navigate: 'menu:navigate',
} as const

export interface ShellMenu {
  /** File ▸ Import…: a file to check in a dry run and import once the user confirms. */
  onImport(listener: (file: MenuImportFile) => void): void
  /** A screen to show, by the name its hash route has (File ▸ Export… sends `export`). */
  onNavigate(listener: (screen: string) => void): void
}
