// A request written byte for byte on a socket: fetch() and http.request() normalise the target
// (or refuse it), and these tests need the exact spelling an attacker would send.

import { connect } from 'node:net'

export interface RawAnswer {
  status: number
  headers: Record<string, string>
  body: string
}

export function rawRequest(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string>,
  body = '',
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk) => chunks.push(chunk))
    socket.on('error', reject)
    socket.on('end', () => {
      try {
        resolve(parse(Buffer.concat(chunks)))
      } catch (error) {
        reject(error)
      }
    })
    const lines = [
      `${method} ${target} HTTP/1.1`,
      ...Object.entries({ connection: 'close', ...headers }).map(([k, v]) => `${k}: ${v}`),
      ...(body === '' ? [] : [`content-length: ${Buffer.byteLength(body)}`]),
    ]
    // Not end(): a half-closed socket may be dropped before a slow answer; `connection: close`
    // has the server close it once it has answered.
    socket.write(`${lines.join('\r\n')}\r\n\r\n${body}`)
  })
}

function parse(bytes: Buffer): RawAnswer {
  const split = bytes.indexOf('\r\n\r\n')
  if (split === -1) throw new Error(`Not an HTTP response: ${bytes.subarray(0, 200).toString()}`)
  const [statusLine = '', ...headerLines] = bytes
    .subarray(0, split)
    .toString('latin1')
    .split('\r\n')
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
    }),
  )
  let body = bytes.subarray(split + 4)
  if (headers['transfer-encoding'] === 'chunked') body = dechunk(body)
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') }
}

function dechunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = bytes.indexOf('\r\n', at)
    const size = parseInt(bytes.subarray(at, lineEnd).toString('latin1'), 16)
    if (!(size > 0)) return Buffer.concat(parts)
    parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}
