import { connect, type Socket } from 'node:net'

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

/** An answer to an upload, with how much of the body had been written when it arrived. */
export interface UploadResponse extends RawResponse {
  /** Body bytes handed to the socket before the answer was complete. */
  sentBytes: number
  /** From the first byte written to the complete answer. */
  ms: number
}

/**
 * Sends a request whose body is written in pieces as the socket drains (as a client uploading
 * a large file does), on a kept-alive connection, and resolves with the answer as soon as it is
 * complete, without waiting for the rest of the body to be written: a server may answer (413,
 * 403) before reading all of it. A connection reset before any answer (a server that closed
 * while the body was still coming: the kernel then discards what it had sent) is status 0.
 */
export function rawUpload (
  port: number,
  request: { method: string; target: string; headers: Record<string, string>; body: Buffer },
  timeoutMs = 60_000
): Promise<UploadResponse> {
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...Object.entries({ host: `127.0.0.1:${port}`, ...request.headers }).map(([k, v]) => `${k}: ${v}`),
  ].join('\r\n')
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    const started = performance.now()
    const chunks: Buffer[] = []
    let sentBytes = 0
    const state = { answered: false }
    const timer = setTimeout(() => finish(new Error(`no complete answer within ${timeoutMs} ms`)), timeoutMs)
    function finish (error?: Error) {
      if (state.answered) return
      state.answered = true
      clearTimeout(timer)
      socket.destroy()
      if (error) return reject(error)
      const ms = performance.now() - started
      if (chunks.length === 0) return resolve({ status: 0, headers: {}, body: '', sentBytes, ms })
      try {
        resolve({ ...parseResponse(Buffer.concat(chunks)), sentBytes, ms })
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)))
      }
    }
    socket.on('data', (chunk) => {
      chunks.push(chunk)
      if (complete(Buffer.concat(chunks))) finish()
    })
    // The server may close while the body is still being written: what it answered counts.
    socket.on('error', () => finish())
    socket.on('close', () => finish())
    const write = async () => {
      socket.write(`${head}\r\n\r\n`)
      const piece = 64 * 1024
      for (let at = 0; at < request.body.length && !state.answered && !socket.destroyed; at += piece) {
        const part = request.body.subarray(at, at + piece)
        sentBytes += part.length
        if (!socket.write(part)) await drained(socket)
      }
    }
    socket.on('connect', () => { write().catch(() => {}) })
  })
}

/** Until the socket can take more, or is closed. */
function drained (socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      socket.off('drain', done)
      socket.off('close', done)
      resolve()
    }
    socket.on('drain', done)
    socket.on('close', done)
  })
}

/** Whether `bytes` hold a whole answer (its headers, and as much body as Content-Length says). */
function complete (bytes: Buffer): boolean {
  const end = bytes.indexOf('\r\n\r\n')
  if (end < 0) return false
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(bytes.toString('latin1', 0, end))?.[1]
  return length !== undefined && bytes.length - (end + 4) >= Number(length)
}
