import { randomBytes } from 'node:crypto'
import { chmod, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateSecret } from './auth/tokens.js'
import { anyTokenExists, ensureInitTokens } from './auth/tokens.store.js'
import type { Config } from './config.js'
import { createDatabase, type DatabaseHandle } from './db/database.js'
import { migrate } from './db/migrator.js'
import { importAtStartup } from './import-export/startup-import.js'
import { ApiError } from './errors.js'
import { PasswordHasher } from './users/password-hash.js'
import { ensureFirstAdmin } from './users/users.service.js'
import { anyUserExists } from './users/users.store.js'

interface Log {
  info(obj: object, msg: string): void
  warn(obj: object, msg: string): void
}

/** Where a first embedded start leaves the admin secret it created. */
export const adminTokenFile = (config: Pick<Config, 'dataDir'>) => join(config.dataDir, 'admin-token')

/** Where a first embedded start leaves the password of the `admin` user it created. */
export const adminPasswordFile = (config: Pick<Config, 'dataDir'>) => join(config.dataDir, 'admin-password')

/** Writes a secret to a file only its owner may read. */
async function writeSecret (file: string, secret: string) {
  await writeFile(file, `${secret}\n`, { mode: 0o600 })
  await chmod(file, 0o600)
}

/**
 * The first person, when no user exists: the one UNLEASH_DEFAULT_ADMIN_USERNAME and
 * UNLEASH_DEFAULT_ADMIN_PASSWORD (or INIT_ADMIN_USERNAME and INIT_ADMIN_PASSWORD) name, whose
 * password must follow the rules; else, on the embedded database only, `admin` with a
 * generated password, written to DATA_DIR/admin-password (owner-readable only) and printed
 * once. The password never goes to the log.
 */
async function ensureFirstPerson (config: Config, database: DatabaseHandle, log: Log, print: (line: string) => void) {
  const people = { db: database.db, hasher: new PasswordHasher(config.passwordHashCost), sessions: config.sessions, loginLimits: config.loginLimits }
  if (config.initialAdmin) {
    try {
      if (await ensureFirstAdmin(people, config.initialAdmin)) log.info({ username: config.initialAdmin.username }, 'first start: created the first admin user')
    } catch (error) {
      if (error instanceof ApiError) throw new Error(`UNLEASH_DEFAULT_ADMIN_PASSWORD (or INIT_ADMIN_PASSWORD) cannot be used: ${error.message}`)
      throw error
    }
    return
  }
  if (database.mode !== 'embedded' || (await anyUserExists(database.db))) return
  const password = randomBytes(18).toString('base64url')
  const file = adminPasswordFile(config)
  await writeSecret(file, password)
  if (await ensureFirstAdmin(people, { username: 'admin', password })) {
    log.info({ file, username: 'admin' }, 'first start: created the user admin; its password is in this file (owner-readable only) and printed below, once')
    print(`Admin login: admin, password (also in ${file}): ${password}`)
  }
}

/**
 * Opens the database (PostgreSQL or embedded), applies pending migrations and init tokens, and
 * imports IMPORT_FILE when it is set.
 * A service in which no token exists could never be called. On the embedded database (trying
 * it out on one machine) the first start therefore creates an admin token, writes its secret
 * to DATA_DIR/admin-token (readable by the owner only) and prints it once; on PostgreSQL (a
 * deployment) it refuses to start and says to set INIT_ADMIN_API_TOKENS.
 */
export async function openDatabase (config: Config, log: Log, print: (line: string) => void = console.log): Promise<DatabaseHandle> {
  const database = await createDatabase(config, (err) =>
    log.warn({ err }, 'database connection lost; it will be reopened on the next request')
  )
  if (database.mode === 'embedded') {
    log.info(
      { dataDir: config.dataDir },
      'no DATABASE_URL: embedded PGlite database, single process only'
    )
  }
  try {
    const applied = await migrate(database.db)
    if (applied.length > 0) log.info({ applied }, 'migrations applied')
    await ensureInitTokens(database.db, config.initAdminApiTokens)
    await ensureFirstPerson(config, database, log, print)
    if (!(await anyTokenExists(database.db))) {
      if (database.mode !== 'embedded') {
        if (await anyUserExists(database.db)) return database
        throw new Error(
          'No API token exists and INIT_ADMIN_API_TOKENS is empty, and no user exists: set INIT_ADMIN_API_TOKENS to the admin secret you want (with docker compose: ADMIN_API_TOKEN), or UNLEASH_DEFAULT_ADMIN_USERNAME and UNLEASH_DEFAULT_ADMIN_PASSWORD'
        )
      }
      const secret = generateSecret(['*'], ['*'])
      const file = adminTokenFile(config)
      await writeSecret(file, secret)
      await ensureInitTokens(database.db, [secret])
      log.info({ file }, 'first start: created an admin token; its secret is in this file (owner-readable only) and printed below, once')
      print(`Admin API token (also in ${file}): ${secret}`)
    }
    const imported = await importAtStartup(database.db, config)
    if (imported) log.info({ file: config.startupImport?.file, mode: config.startupImport?.mode, ...imported }, 'IMPORT_FILE imported')
  } catch (error) {
    await database.db.destroy()
    throw error
  }
  return database
}
