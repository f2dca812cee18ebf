import { connect } from 'node:net'

export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/**
 * Sends one request exactly as written (request target, headers and body untouched by any
 * client library) and reads the answer until the server closes the connection.
 */
export function rawRequest (
  port: number,
  request: { method: string; target: string; headers?: Record<string, string>; body?: string },
  timeoutMs = 5000
): Promise<RawResponse> {
  const body = request.body ?? ''
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    connection: 'close',
    ...(body !== '' ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}),
    ...request.headers,
  }
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n')
  return rawExchange(port, `${head}\r\n\r\n${body}`, timeoutMs)
}

/** Writes bytes to a fresh connection and parses whatever HTTP/1.1 answer comes back. */
export function rawExchange (port: number, bytes: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete answer within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', (err) => {
      clearTimeout(timer)
      reject(err)
    })
    socket.on('close', () => {
      clearTimeout(timer)
      try {
        resolve(parseResponse(Buffer.concat(chunks)))
      } catch (err) {
        reject(err)
      }
    })
    socket.write(bytes)
  })
}

function parseResponse (bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) throw new Error(`not an HTTP answer: ${JSON.stringify(bytes.toString('latin1', 0, 200))}`)
  const [statusLine, ...lines] = bytes.toString('latin1', 0, end).split('\r\n')
  const match = /^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')
  if (!match) throw new Error(`bad status line: ${statusLine}`)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = bytes.subarray(end + 4)
  if (headers['transfer-encoding'] === 'chunked') body = unchunk(body)
  return { status: Number(match[1]), headers, body: body.toString('utf8') }
}

function unchunk (bytes: Buffer): Buffer {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const eol = bytes.indexOf('\r\n', at)
    const size = parseInt(bytes.toString('latin1', at, eol), 16)
    if (!size) return Buffer.concat(parts)
    parts.push(bytes.subarray(eol + 2, eol + 2 + size))
    at = eol + 2 + size + 2
  }
}
