// Saving a text the API answered as a file, in the browser: a download through a Blob link. It is
// the headless shell's saveFile; the Electron shell's opens its save dialog instead.

import type { Bridge } from '@shared/bridge'

export const downloadTextFile: Bridge['saveFile'] = async ({ suggestedName, text }) => {
  const type = suggestedName.endsWith('.json') ? 'application/json' : 'text/plain'
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = suggestedName
  link.click()
  // The download reads the Blob after the click returns; revoke once it has started.
  setTimeout(() => URL.revokeObjectURL(url))
  return { name: suggestedName }
}
