// Saving a text the API answered as a file, in the browser: a download through a Blob link (the
// Electron shell's native save dialog would replace this there).

export function saveTextFile(text: string, fileName: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const link = document.createElement('a')
  link.href = url
  link.download = fileName
  link.click()
  // The download reads the Blob after the click returns; revoke once it has started.
  setTimeout(() => URL.revokeObjectURL(url))
}
