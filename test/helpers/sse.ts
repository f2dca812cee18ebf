/**
 * A raw server-sent-events reader for tests and the bench: GET a stream with headers, parse
 * `event:`, `id:`, `data:` and comment lines as they arrive, and wait for the next event.
 */
import http from 'node:http'

export interface SseEvent {
  event: string
  id: string | undefined
  data: string
  /** The parsed data. */
  json: any
}

export interface SseStream {
  status: number
  headers: http.IncomingHttpHeaders
  /** The body of a refusal (a status other than 200). */
  body: string
  events: SseEvent[]
  comments: number
  /** Resolves with the next event not yet taken (in order). */
  next(timeoutMs?: number): Promise<SseEvent>
  /** Whether the server ended the stream. */
  ended: boolean
  /** Resolves when the stream ends (the server ended it, or the connection went). */
  done: Promise<void>
  close(): void
}

export function openSse (url: string, headers: Record<string, string> = {}, options: { agent?: http.Agent } = {}): Promise<SseStream> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: options.agent ?? false }, (res) => {
      let finished!: () => void
      const stream: SseStream = {
        done: new Promise<void>((resolve) => { finished = resolve }),
        status: res.statusCode ?? 0,
        headers: res.headers,
        body: '',
        events: [],
        comments: 0,
        ended: false,
        next: (timeoutMs = 10_000) => {
          if (taken < stream.events.length) return Promise.resolve(stream.events[taken++]!)
          return new Promise((resolve, reject) => {
            const timer = setTimeout(() => {
              waiting = undefined
              reject(new Error(`no server-sent event within ${timeoutMs} ms`))
            }, timeoutMs)
            waiting = () => {
              clearTimeout(timer)
              waiting = undefined
              resolve(stream.events[taken++]!)
            }
          })
        },
        close: () => {
          req.destroy()
        },
      }
      let taken = 0
      let waiting: (() => void) | undefined
      let buffer = ''
      let current: { event?: string; id?: string; data: string[] } = { data: [] }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        if (stream.status !== 200) {
          stream.body += chunk
          return
        }
        buffer += chunk
        let newline = buffer.indexOf('\n')
        while (newline >= 0) {
          const line = buffer.slice(0, newline)
          buffer = buffer.slice(newline + 1)
          if (line === '') {
            if (current.data.length > 0) {
              const data = current.data.join('\n')
              stream.events.push({ event: current.event ?? 'message', id: current.id, data, json: JSON.parse(data) })
              waiting?.()
            }
            current = { data: [] }
          } else if (line.startsWith(':')) {
            stream.comments++
          } else {
            const colon = line.indexOf(':')
            const field = colon < 0 ? line : line.slice(0, colon)
            const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
            if (field === 'event') current.event = value
            else if (field === 'id') current.id = value
            else if (field === 'data') current.data.push(value)
          }
          newline = buffer.indexOf('\n')
        }
      })
      const end = () => {
        stream.ended = true
        finished()
      }
      res.on('end', end)
      res.on('close', end)
      res.on('error', end)
      if (stream.status === 200) resolve(stream)
      else res.on('end', () => resolve(stream))
    })
    req.on('error', reject)
  })
}
