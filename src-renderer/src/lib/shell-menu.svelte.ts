// The Electron shell's File menu, on the renderer's side (the headless shell has no menu, so
// nothing here runs there). Import… hands over the chosen file, kept here until the Import screen
// takes it, whether that screen is showing or opened for it; Export… and the like name a screen.

import type { MenuImportFile } from '@shared/shell-menu'
import { SCREENS, router, type Screen } from './router.svelte'

class MenuImport {
  /** The file File ▸ Import… chose, until the Import screen takes it. */
  pending = $state.raw<MenuImportFile | null>(null)

  take(): MenuImportFile | null {
    const file = this.pending
    this.pending = null
    return file
  }
}

export const menuImport = new MenuImport()

const isScreen = (name: string): name is Screen => (SCREENS as readonly string[]).includes(name)

window.workbenchMenu?.onImport((file) => {
  menuImport.pending = file
  router.go('import')
})
window.workbenchMenu?.onNavigate((screen) => {
  if (isScreen(screen)) router.go(screen)
})
