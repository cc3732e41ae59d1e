// The committed OWASP catalog, CRS program and phrase files are what scripts/crs-catalog.ts makes
// from the installed CRS package (issue 18): regenerated here, compared byte for byte.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { convert, CRS_PACKAGE } from '../../../scripts/crs-catalog'

const installed = existsSync(CRS_PACKAGE)

describe('the OWASP catalog converted from CRS 3.3.4', () => {
  it.skipIf(!installed)('equals what the converter writes from the installed package', async () => {
    const files = await convert()
    expect(files.size).toBeGreaterThan(4)
    for (const [path, text] of files) {
      expect(existsSync(path), `${path} is not committed`).toBe(true)
      expect(readFileSync(path, 'latin1') === text, `${path} differs: npm run crs:catalog`).toBe(
        true,
      )
    }
  })

  it.runIf(!installed)(
    `cannot be regenerated here: ${CRS_PACKAGE} is missing (apt-get install modsecurity-crs)`,
    () => {
      expect(installed).toBe(false)
    },
  )
})
