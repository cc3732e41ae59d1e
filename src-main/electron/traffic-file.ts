// The Electron shell's file dialog for a traffic file to replay or compare: it answers the path
// the user chose over the window (or null), which replayChosenFile (../bridge/replay-file.ts)
// checks and posts to the service as the job's `{"file": …}`.

import { dialog, type BrowserWindow, type OpenDialogOptions } from 'electron'

const DIALOG: OpenDialogOptions = {
  title: 'Choose a traffic file',
  buttonLabel: 'Replay',
  properties: ['openFile'],
  filters: [
    {
      name: 'Traffic (request NDJSON, Logpush, combined logs, HAR; gzip or not)',
      extensions: ['ndjson', 'jsonl', 'json', 'har', 'log', 'txt', 'gz'],
    },
    { name: 'All files', extensions: ['*'] },
  ],
}

export function chooseTrafficFile(window: () => BrowserWindow | undefined) {
  return async (): Promise<string | null> => {
    const owner = window()
    const choice = await (owner
      ? dialog.showOpenDialog(owner, DIALOG)
      : dialog.showOpenDialog(DIALOG))
    return choice.canceled ? null : (choice.filePaths[0] ?? null)
  }
}
