import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import { type Kysely, sql } from 'kysely'
import type { DB } from './types.js'

/** `migrations/` at the package root, seen from src/db/ (sources) or dist/ (the bundle). */
export const MIGRATIONS_DIR = ['../../migrations/', '../migrations/']
  .map((relative) => new URL(relative, import.meta.url))
  .find((url) => existsSync(url)) as URL

/** Key of the transaction-scoped advisory lock that serialises concurrent migrators. */
const MIGRATION_LOCK_KEY = 7_242_001

/**
 * Applies every pending `migrations/NNNN_*.sql` in name order, all in one transaction
 * under an advisory lock, so instances starting together apply each file exactly once.
 * Returns the names applied by this call.
 */
export async function migrate (db: Kysely<DB>): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort()
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`.execute(trx)
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (
      name TEXT PRIMARY KEY,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`.execute(trx)
    const done = await sql<{ name: string }>`SELECT name FROM schema_migrations`.execute(trx)
    const applied = new Set(done.rows.map((r) => r.name))
    const pending = files.filter((f) => !applied.has(f))
    for (const file of pending) {
      const text = await readFile(new URL(file, MIGRATIONS_DIR), 'utf8')
      await sql.raw(text).execute(trx)
      await sql`INSERT INTO schema_migrations (name) VALUES (${file})`.execute(trx)
    }
    return pending
  })
}
