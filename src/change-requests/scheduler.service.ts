/**
 * Scheduled change requests, applied when due: exactly once with several instances on one
 * database (each claims a due request with FOR UPDATE SKIP LOCKED, and applies it and marks it
 * Applied in the same transaction), surviving restarts (an overdue one is applied at start), on
 * time (a timer for the next due time, read after every round, besides a cheap poll that finds
 * one scheduled through another instance). One that cannot apply stays Scheduled with its
 * schedule failed (a write refused) or suspended (a conflict; the person who scheduled it is
 * gone), a reason and an event (and so a webhook), for a person to reschedule or reject.
 */
import type { FastifyBaseLogger } from 'fastify'
import type { Worker } from '../background/worker.js'
import type { Database } from '../db/types.js'
import { writeChange } from '../events/events.service.js'
import type { Author, NewEvent } from '../events/events.schemas.js'
import { applyChanges, ApplyRefusal } from './apply.service.js'
import { changesOf, claimDue, nextDue, releaseSavepoint, rollbackTo, savepoint, updateRequest } from './change-requests.store.js'
import type { StoredRequest } from './change-requests.schemas.js'
import { requestEvent } from './change-requests.service.js'
import type { ChangeRules } from './payloads.js'

/** Requests applied in one round at most; the next round follows at once. */
const ROUND = 50
/** When the due request is another instance's to apply, the wait before looking again. */
const BUSY_RETRY_MS = 100

const stamped = (request: StoredRequest, state: string) => ({ ...request.stateTimestamps, [state]: new Date().toISOString() })

/**
 * Claims the Scheduled request due soonest and applies it, in one transaction; false when none
 * is due. A refusal rolls the writes back (a savepoint) and marks the schedule instead, in the
 * same transaction, so that another instance never claims it twice.
 */
export async function applyDue (db: Database, rules: ChangeRules): Promise<boolean> {
  return writeChange(db, async (change) => {
    const request = await claimDue(change.trx)
    if (!request) return false
    const schedule = request.schedule!
    const applier: Author = { name: schedule.byName ?? request.authorName, ...(schedule.byId !== null && { userId: schedule.byId }) }
    const stop = async (status: 'failed' | 'suspended', reason: string) => {
      await updateRequest(change.trx, request.id, { schedule: { ...schedule, status, reason } })
      const type = status === 'failed' ? 'change-request-scheduled-application-failure' : 'change-request-schedule-suspended'
      change.record(requestEvent(type, request, applier, { reason, scheduledAt: schedule.scheduledAt.toISOString() }))
    }
    if (schedule.byId === null) {
      await stop('suspended', `The user who scheduled this change request (${schedule.byName ?? 'unknown'}) has been deleted`)
      return true
    }
    const changes = await changesOf(change.trx, [request.id])
    const events: NewEvent[] = []
    await savepoint(change.trx, 'scheduled_apply')
    try {
      await applyChanges({ trx: change.trx, record: (e) => { events.push(e) } }, request, changes, applier, rules)
      await releaseSavepoint(change.trx, 'scheduled_apply')
    } catch (error) {
      if (!(error instanceof ApplyRefusal)) throw error
      await rollbackTo(change.trx, 'scheduled_apply')
      await stop(error.moved ? 'suspended' : 'failed', error.message)
      return true
    }
    for (const event of events) change.record(event)
    await updateRequest(change.trx, request.id, { state: 'Applied', stateTimestamps: stamped(request, 'Applied'), schedule: null })
    change.record(requestEvent('change-request-applied', request, applier))
    change.record(requestEvent('change-request-scheduled-application-success', request, applier, { scheduledAt: schedule.scheduledAt.toISOString() }))
    return true
  })
}

/** The worker: rounds of applyDue when due, when woken, and every CHANGE_REQUEST_POLL_MS (`pollMs`). */
export class Scheduler implements Worker {
  #running = false
  #timer: NodeJS.Timeout | undefined
  #round: Promise<void> | undefined
  #again = false

  constructor (
    private readonly db: Database,
    private readonly rules: ChangeRules,
    private readonly log: FastifyBaseLogger,
    private readonly pollMs: number
  ) {}

  /**
   * The first round comes within one poll (instances started together do not poll in step):
   * what fell due while no instance ran is applied then.
   */
  start (): void {
    if (this.#running) return
    this.#running = true
    this.#timer = setTimeout(() => this.wake(), Math.random() * this.pollMs)
    this.#timer.unref()
  }

  async stop (): Promise<void> {
    this.#running = false
    clearTimeout(this.#timer)
    await this.#round
  }

  /** Something may be due sooner (a request scheduled here): a round now, or right after the one under way. */
  wake (): void {
    if (!this.#running) return
    if (this.#round) {
      this.#again = true
      return
    }
    clearTimeout(this.#timer)
    this.#round = this.#run().finally(() => {
      this.#round = undefined
      if (this.#again) {
        this.#again = false
        this.wake()
      }
    })
  }

  /**
   * Applies what is due, then waits for the next due time or the poll, whichever is sooner. A
   * round with nothing due is one indexed read.
   */
  async #run (): Promise<void> {
    let wait = this.pollMs
    try {
      for (let n = 0; ; n++) {
        const { at, now } = await nextDue(this.db)
        if (at === null) break
        const until = at.getTime() - now.getTime()
        if (until > 0 || n === ROUND) {
          wait = n === ROUND ? 0 : Math.min(wait, until)
          break
        }
        if (!(await applyDue(this.db, this.rules))) {
          // Another instance holds what is due (applying it): look again shortly.
          wait = Math.min(wait, BUSY_RETRY_MS)
          break
        }
      }
    } catch (err) {
      this.log.warn({ err }, 'applying scheduled change requests failed; tried again at the next poll')
    }
    if (!this.#running) return
    this.#timer = setTimeout(() => this.wake(), wait)
    this.#timer.unref()
  }
}
