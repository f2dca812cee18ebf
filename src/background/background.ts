import type { Worker } from './worker.js'

interface Entry {
  name: string
  worker: Worker
  endsConnections: boolean
}

/**
 * The background work of one instance, in one list, in the order it starts: `start` starts each
 * in turn; the workers stop in the reverse order, so that a worker stops before those it
 * relies on (the change feed, started first, stops last). Those that hold clients' connections
 * open (the streams) stop first, with `stopConnections`, as the app begins to close: the server
 * waits for its connections to end, and would wait for them forever. The others stop with
 * `stop`, once the last request has been answered, so that what requests handed them (usage
 * reports) is written. A worker that fails to stop does not keep the others running: each is
 * stopped, and the first failure is thrown, naming the worker.
 */
export class Background {
  readonly #entries: Entry[] = []

  /** Adds a worker; `endsConnections` for one that holds clients' connections open. */
  add (name: string, worker: Worker, { endsConnections = false } = {}): this {
    this.#entries.push({ name, worker, endsConnections })
    return this
  }

  async start (): Promise<void> {
    for (const { worker } of this.#entries) await worker.start()
  }

  /** Stops the workers that hold clients' connections open. */
  stopConnections (): Promise<void> {
    return this.#stop(this.#entries.filter((e) => e.endsConnections))
  }

  /** Stops every worker, in the reverse order of start. */
  stop (): Promise<void> {
    return this.#stop(this.#entries)
  }

  async #stop (entries: readonly Entry[]): Promise<void> {
    let failure: Error | undefined
    for (const { name, worker } of [...entries].reverse()) {
      try {
        await worker.stop()
      } catch (error) {
        failure ??= new Error(`stopping ${name} failed`, { cause: error })
      }
    }
    if (failure) throw failure
  }
}
