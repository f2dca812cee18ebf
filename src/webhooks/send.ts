import { request as httpRequest, type IncomingMessage } from 'node:http'
import { request as httpsRequest } from 'node:https'
import type { LookupFunction } from 'node:net'
import type { CheckedTarget } from './ssrf.js'

export interface SendResult {
  /** The HTTP status, when an answer came. */
  status?: number
  /** Why the attempt failed; undefined for a 2xx. */
  error?: string
}

/** Bytes of a receiver's answer that are read (and dropped) before the connection is closed. */
const MAX_ANSWER_BYTES = 64 * 1024

/**
 * POSTs `body` to the checked target. The connection goes to the address that was checked (the
 * lookup hands it back, so Host and TLS name stay those of the URL); redirects are not followed
 * (a 3xx is a failed attempt); everything (connect, send, answer) must end within `timeout.ms`
 * (else the attempt fails with `timeout.error`), and `signal` aborts it.
 */
export function postOnce (
  target: CheckedTarget,
  headers: Record<string, string>,
  body: string,
  timeout: { ms: number; error: string },
  signal: AbortSignal
): Promise<SendResult> {
  const pinned: LookupFunction = (_hostname, options, callback) => {
    if (options.all) callback(null, [{ address: target.address, family: target.family }])
    else callback(null, target.address, target.family)
  }
  const request = target.url.protocol === 'https:' ? httpsRequest : httpRequest
  if (signal.aborted) return Promise.resolve({ error: 'aborted: the instance is shutting down' })
  return new Promise((resolve) => {
    let settled = false
    const finish = (result: SendResult) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      req.destroy()
      resolve(result)
    }
    const req = request(target.url, {
      method: 'POST',
      lookup: pinned,
      agent: false,
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
    })
    const timer = setTimeout(() => finish({ error: timeout.error }), timeout.ms)
    const onAbort = () => finish({ error: 'aborted: the instance is shutting down' })
    signal.addEventListener('abort', onAbort)
    req.on('error', (error: NodeJS.ErrnoException) => finish({ error: `${error.code ?? 'request failed'}: ${error.message}` }))
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0
      let read = 0
      const done = () => finish(
        status >= 200 && status < 300
          ? { status }
          : { status, error: status >= 300 && status < 400 ? `redirect (${status}) not followed` : `answered ${status}` }
      )
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_ANSWER_BYTES) done()
      })
      res.on('end', done)
      res.on('error', done)
    })
    req.end(body)
  })
}
