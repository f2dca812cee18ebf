import type { Transaction } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

export interface FeedbackRow {
  feedbackId: string
  given: Date | null
  neverShow: boolean
}

export async function feedbackOf (db: Queryable, userId: number): Promise<FeedbackRow[]> {
  const rows = await db.selectFrom('user_feedback').select(['feedback_id', 'given', 'never_show']).where('user_id', '=', userId).orderBy('feedback_id').execute()
  return rows.map((r) => ({ feedbackId: r.feedback_id, given: r.given, neverShow: r.never_show }))
}

export async function splashesOf (db: Queryable, userId: number): Promise<string[]> {
  const rows = await db.selectFrom('user_splash').select('splash_id').where('user_id', '=', userId).orderBy('splash_id').execute()
  return rows.map((r) => r.splash_id)
}

/** The user's row, locked until the transaction ends (their preferences change one at a time), with how many they keep. */
export async function lockPreferences (trx: Transaction<DB>, userId: number) {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
  const row = await trx
    .selectFrom('users')
    .select([
      (eb) => eb.selectFrom('user_feedback').select((e) => e.fn.countAll<string>().as('n')).where('user_id', '=', userId).as('feedback'),
      (eb) => eb.selectFrom('user_splash').select((e) => e.fn.countAll<string>().as('n')).where('user_id', '=', userId).as('splash'),
    ])
    .where('id', '=', userId)
    .executeTakeFirst()
  return { feedback: Number(row?.feedback ?? 0), splash: Number(row?.splash ?? 0) }
}

export async function findFeedback (trx: Transaction<DB>, userId: number, feedbackId: string): Promise<FeedbackRow | undefined> {
  const row = await trx.selectFrom('user_feedback').select(['feedback_id', 'given', 'never_show']).where('user_id', '=', userId).where('feedback_id', '=', feedbackId).executeTakeFirst()
  return row && { feedbackId: row.feedback_id, given: row.given, neverShow: row.never_show }
}

export async function upsertFeedback (trx: Transaction<DB>, userId: number, feedback: FeedbackRow): Promise<void> {
  await trx
    .insertInto('user_feedback')
    .values({ user_id: userId, feedback_id: feedback.feedbackId, given: feedback.given, never_show: feedback.neverShow })
    .onConflict((oc) => oc.columns(['user_id', 'feedback_id']).doUpdateSet({ given: feedback.given, never_show: feedback.neverShow }))
    .execute()
}

/** Marks a splash seen; whether it was not yet. */
export async function markSplashSeen (trx: Transaction<DB>, userId: number, splashId: string): Promise<boolean> {
  const result = await trx
    .insertInto('user_splash')
    .values({ user_id: userId, splash_id: splashId })
    .onConflict((oc) => oc.columns(['user_id', 'splash_id']).doNothing())
    .executeTakeFirst()
  return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0
}
