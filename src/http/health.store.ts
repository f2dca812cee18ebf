import type { Database } from '../db/types.js'

/** One round trip to the database. */
export async function pingDatabase (db: Database): Promise<void> {
  await db.selectNoFrom((eb) => eb.val(1).as('one')).execute()
}
