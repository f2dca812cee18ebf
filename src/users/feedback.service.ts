import type { Database } from '../db/types.js'
import { badData } from '../errors.js'
import { withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { feedbackOf, findFeedback, lockPreferences, markSplashSeen, splashesOf, upsertFeedback } from './feedback.store.js'

/** The most feedback prompts and splash screens one person's answers are kept for. */
export const MAX_PREFERENCES = 100

/** What GET /api/admin/user tells the admin UI: feedback given, splash screens seen. */
export async function preferencesOf (db: Database, userId: number) {
  const [feedback, splashes] = await Promise.all([feedbackOf(db, userId), splashesOf(db, userId)])
  return {
    feedback: feedback.map((f) => ({ userId, feedbackId: f.feedbackId, given: f.given, neverShow: f.neverShow })),
    splash: Object.fromEntries(splashes.map((id) => [id, true])),
  }
}

/**
 * A person's answer to a feedback prompt of the admin UI (Unleash's user feedback): given now
 * (or when `given` says), never to be shown again or not. Records user-preference-updated when
 * it changes anything; at most MAX_PREFERENCES prompts per person (400 past it).
 */
export function giveFeedback (writer: Writer, userId: number, feedbackId: string, answer: { neverShow?: boolean; given?: string | null }, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const kept = await lockPreferences(trx, userId)
    const before = await findFeedback(trx, userId, feedbackId)
    if (!before && kept.feedback >= MAX_PREFERENCES) throw badData(`At most ${MAX_PREFERENCES} feedback answers are kept per person`)
    const after = { feedbackId, given: answer.given ? new Date(answer.given) : new Date(), neverShow: answer.neverShow ?? false }
    const same = before !== undefined && before.neverShow === after.neverShow && before.given?.getTime() === after.given.getTime()
    if (!same) {
      await upsertFeedback(trx, userId, after)
      record({ type: 'user-preference-updated', createdBy: author, data: toJsonText({ userId, feedbackId, neverShow: after.neverShow, given: after.given.toISOString() }) })
    }
    return { userId, ...after }
  })
}

/**
 * Marks a splash screen of the admin UI seen by a person (user-preference-updated the first
 * time; nothing after). At most MAX_PREFERENCES per person (400 past it).
 */
export function seeSplash (writer: Writer, userId: number, splashId: string, author: Author) {
  return withChange(writer, async ({ trx, record }) => {
    const kept = await lockPreferences(trx, userId)
    const seen = (await splashesOf(trx, userId)).includes(splashId)
    if (!seen) {
      if (kept.splash >= MAX_PREFERENCES) throw badData(`At most ${MAX_PREFERENCES} splash screens are kept per person`)
      await markSplashSeen(trx, userId, splashId)
      record({ type: 'user-preference-updated', createdBy: author, data: toJsonText({ userId, splashId, seen: true }) })
    }
    return { userId, splashId, seen: true as const }
  })
}
