import { readSnapshot } from '../db/snapshot.js'
import type { Database } from '../db/types.js'
import type { ChangeFeed } from '../events/change-feed.js'
import { eventsOf, planFrom, readPosition, type StreamScope } from './delta.service.js'
import type { DeltaEvent } from './streaming.schemas.js'
import { anyEventFrom, readHorizon, tokensDeletedBetween } from './streaming.store.js'
import type { StreamJoin, StreamRound, StreamSource, StreamUpdate } from './streams.service.js'

/**
 * The streams' source on the server: the database. A round reads in one repeatable-read
 * snapshot the events since the revision every open stream holds (each scope's update built
 * once) and the first event of each new stream; the change feed wakes the streams after every
 * commit. The position is the revision (see delta.service.ts).
 */
export class DatabaseStreamSource implements StreamSource<bigint> {
  constructor (
    private readonly db: Database,
    private readonly feed: ChangeFeed,
    private readonly replayLimit: number
  ) {}

  subscribe (listener: () => void): () => void {
    return this.feed.subscribe(listener)
  }

  async read (from: bigint | undefined, scopes: readonly StreamScope[], joins: readonly StreamJoin[]): Promise<StreamRound<bigint>> {
    const horizon = await readHorizon(this.db)
    return readSnapshot(this.db, async (trx) => {
      const position = await readPosition(trx, horizon)
      const updates = new Map<string, StreamUpdate>()
      // A stream lives as long as its token: one deleted since the last round ends its streams.
      const deleted = from !== undefined && scopes.length > 0 ? await tokensDeletedBetween(trx, from, position.watermark) : []
      if (from !== undefined && scopes.length > 0) {
        const plan = await planFrom(trx, position, from, this.replayLimit)
        for (const scope of scopes) updates.set(scope.key, { revision: position.revision, events: await eventsOf(trx, scope.filter, plan) })
      }
      const firsts = new Map<string, { revision: bigint; events: DeltaEvent[]; kind: 'up-to-date' | 'hydrate' | 'changes' }>()
      for (const join of joins) {
        const plan = await planFrom(trx, position, join.lastEventId, this.replayLimit)
        firsts.set(join.key, { revision: position.revision, events: await eventsOf(trx, join.scope.filter, plan), kind: plan.kind })
      }
      return { position: position.revision, updates, firsts, deleted, heldBack: await anyEventFrom(trx, position.watermark) }
    })
  }
}
