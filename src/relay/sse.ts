/** One server-sent event: its `event:` (message by default), its `id:`, and its data lines joined. */
export interface ServerSentEvent {
  event: string
  id: string | undefined
  data: string
}

/**
 * Reads server-sent events from a byte stream as they arrive (the text/event-stream format:
 * fields up to a blank line; comments, such as keep-alives, start with a colon). `onBytes` is
 * told of every chunk, keep-alives included, so that a reader can tell a quiet stream from a
 * dead one. A line longer than `maxLineBytes` ends the stream with an error (a bound on what
 * an upstream can make this process hold).
 */
export async function * readEvents (body: AsyncIterable<Uint8Array>, onBytes: () => void, maxLineBytes = 64 * 1024 * 1024): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder()
  let buffer = ''
  let event: { name?: string; id?: string; data: string[] } = { data: [] }
  for await (const chunk of body) {
    onBytes()
    buffer += decoder.decode(chunk, { stream: true })
    let newline = buffer.indexOf('\n')
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '')
      buffer = buffer.slice(newline + 1)
      if (line === '') {
        if (event.data.length > 0) yield { event: event.name ?? 'message', id: event.id, data: event.data.join('\n') }
        event = { data: [] }
      } else if (!line.startsWith(':')) {
        const colon = line.indexOf(':')
        const field = colon < 0 ? line : line.slice(0, colon)
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'event') event.name = value
        else if (field === 'id') event.id = value
        else if (field === 'data') event.data.push(value)
      }
      newline = buffer.indexOf('\n')
    }
    if (buffer.length > maxLineBytes) throw new Error(`the upstream sent a line longer than ${maxLineBytes} bytes`)
  }
}
