/**
 * Pooled sending: large answers are assembled into reusable buffers, lent for one answer and
 * given back once that answer has been handed to the operating system. Allocating a fresh
 * buffer of hundreds of kilobytes per request (and collecting it) cost more server CPU than
 * assembling the answer into it: measured with a 660 kB answer, 0.75 ms per request against
 * 0.40 ms when the buffer is reused. A buffer whose response never finished is left to the
 * collector. The whole loan is here: the pool (`AnswerBuffers`), an answer that borrows from it
 * (`Answer`, made by `lend`), and the bytes a route sends (`bytesUntilSent`).
 */
const SMALLEST = 16 * 1024

export class AnswerBuffers {
  readonly #free = new Map<number, Buffer[]>()
  #kept = 0

  /** At most `maxBytes` are kept for reuse; answers under 16 kB are never pooled. */
  constructor (private readonly maxBytes = 64 * 1024 * 1024) {}

  /** A buffer of at least `length` bytes, used by one answer until it is given back. */
  take (length: number): Buffer {
    if (length < SMALLEST) return Buffer.allocUnsafe(length)
    const capacity = 2 ** Math.ceil(Math.log2(length))
    const reused = this.#free.get(capacity)?.pop()
    if (reused !== undefined) {
      this.#kept -= capacity
      return reused
    }
    return Buffer.allocUnsafeSlow(capacity)
  }

  /** Gives back a buffer `take` returned, once nothing reads it any more. */
  give (buffer: Buffer): void {
    const capacity = buffer.length
    if (capacity < SMALLEST || this.#kept + capacity > this.maxBytes) return
    const list = this.#free.get(capacity) ?? []
    list.push(buffer)
    this.#free.set(capacity, list)
    this.#kept += capacity
  }
}

/** Bytes in a lent buffer, and what to call once they have been sent (the buffer goes back). */
export interface Loan {
  bytes: Buffer
  sent: () => void
}

/** An answer: its ETag at once, its bytes only when they are sent. */
export interface Answer {
  etag: string
  body: () => Loan
}

/** Writes an answer into a buffer of the pool (`write` says where in it the answer is). */
export function lend (buffers: AnswerBuffers, write: (take: (length: number) => Buffer) => { buffer: Buffer; start: number; end: number }): Loan {
  const { buffer, start, end } = write((n) => buffers.take(n))
  return { bytes: buffer.subarray(start, end), sent: () => buffers.give(buffer) }
}

/** The answer's bytes, to send on `response`; their buffer goes back to the pool once the response has handed them to the system. */
export function bytesUntilSent (answer: Answer, response: { once (event: 'finish', listener: () => void): unknown }): Buffer {
  const { bytes, sent } = answer.body()
  response.once('finish', sent)
  return bytes
}
