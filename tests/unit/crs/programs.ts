// Small SecLang programs read by the real reader and run by the real interpreter, and the plain
// request they are tried on, for the CRS unit tests.
import { requestContext, type RequestDescription } from '@shared/expression'
import { CrsProgramRunner, type CrsResult } from '../../../src-main/engine/crs/interpreter'
import { crsRequestOf, type CrsRequest } from '../../../src-main/engine/crs/request'
import { SecLangReader } from '../../../src-main/engine/crs/seclang'

/** The runner of `text`, a SecLang program. */
export function runnerOf(text: string): CrsProgramRunner {
  const reader = new SecLangReader()
  reader.read(text, 'test.conf')
  return new CrsProgramRunner({
    program: { source: 'test', items: reader.items, dataFiles: [] },
    data: {},
  })
}

/** `program` run at paranoia level 1 on a request description, as the engine hands it over. */
export function runOnDescription(program: string, description: RequestDescription): CrsResult {
  return runnerOf(program).run(crsRequestOf(requestContext(description)), {
    paranoiaLevel: 1,
    disabled: new Set(),
  })
}

/** A GET of / for example.com from 127.0.0.1, with `overrides`. */
export function crsRequest(overrides: Partial<CrsRequest> = {}): CrsRequest {
  return {
    method: 'GET',
    uri: '/',
    protocol: 'HTTP/1.1',
    headers: [['Host', 'example.com']],
    body: '',
    remoteAddr: '127.0.0.1',
    ...overrides,
  }
}
