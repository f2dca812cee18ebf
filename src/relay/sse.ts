import { TextDecoder } from 'node:util'

/** One server-sent event: its `event:` (message by default), its `id:`, and its data lines joined. */
export interface ServerSentEvent {
  event: string
  id: string | undefined
  data: string
}

/** What a reader holds between chunks: the start of an unfinished line, in pieces, and the event being read. */
interface ReaderState {
  pieces: string[]
  length: number
  event: { name?: string; id?: string; data: string[] }
}

/** One complete line: a field of the event being read, or the blank line that ends it (pushed onto `out`). */
function takeLine (state: ReaderState, line: string, out: ServerSentEvent[]) {
  if (line.endsWith('\r')) line = line.slice(0, -1)
  if (line === '') {
    const { name, id, data } = state.event
    if (data.length > 0) out.push({ event: name ?? 'message', id, data: data.length === 1 ? data[0]! : data.join('\n') })
    state.event = { data: [] }
    return
  }
  if (line.startsWith(':')) return
  const colon = line.indexOf(':')
  const field = colon < 0 ? line : line.slice(0, colon)
  const value = colon < 0 ? '' : line.slice(line[colon + 1] === ' ' ? colon + 2 : colon + 1)
  if (field === 'event') state.event.name = value
  else if (field === 'id') state.event.id = value
  else if (field === 'data') state.event.data.push(value)
}

/**
 * Reads the text of `chunk`, telling `onEvent` of each event it completes. Only the new text is
 * searched for line ends, and an unfinished line is kept in pieces, joined once when it ends: a
 * large event (a hydration of thousands of flags) arriving in many chunks is read in one pass,
 * not copied again with every chunk.
 */
function take (state: ReaderState, decoder: TextDecoder, chunk: Uint8Array, onEvent: (event: ServerSentEvent) => void) {
  const text = decoder.decode(chunk, { stream: true })
  const out: ServerSentEvent[] = []
  let start = 0
  let newline = text.indexOf('\n')
  while (newline >= 0) {
    let line = text.slice(start, newline)
    if (state.pieces.length > 0) {
      state.pieces.push(line)
      line = state.pieces.join('')
      state.pieces = []
      state.length = 0
    }
    takeLine(state, line, out)
    start = newline + 1
    newline = text.indexOf('\n', start)
  }
  if (start < text.length) {
    state.pieces.push(text.slice(start))
    state.length += text.length - start
  }
  for (const event of out) onEvent(event)
}

/**
 * Reads server-sent events from a byte stream as they arrive (the text/event-stream format:
 * fields up to a blank line; comments, such as keep-alives, start with a colon), telling
 * `onEvent` of each; resolves when the stream ends. `onBytes` is told of every chunk,
 * keep-alives included, so that a reader can tell a quiet stream from a dead one. A line longer
 * than `maxLineBytes` ends the stream with an error (a bound on what an upstream can make this
 * process hold). Events are handed over from a plain function, not yielded: while this waits
 * for the next chunk it holds no text of the events it read (an async function keeps its
 * variables while it waits, and an event's fields are slices of the text it came in).
 */
export async function readEvents (body: AsyncIterable<Uint8Array>, onBytes: () => void, onEvent: (event: ServerSentEvent) => void, maxLineBytes = 64 * 1024 * 1024): Promise<void> {
  const decoder = new TextDecoder()
  const state: ReaderState = { pieces: [], length: 0, event: { data: [] } }
  for await (const chunk of body) {
    onBytes()
    take(state, decoder, chunk, onEvent)
    if (state.length > maxLineBytes) throw new Error(`the upstream sent a line longer than ${maxLineBytes} bytes`)
  }
}
