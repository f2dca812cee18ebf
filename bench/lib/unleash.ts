/** Unleash 8.2 beside us: started on this PostgreSQL (BENCH_UNLEASH=1) or named (UNLEASH_URL). */
import { createDatabase, dropDatabase } from '../../test/helpers/database.js'
import { startUnleash } from '../../test/helpers/unleash.js'
import { UNLEASH_VERSION } from '../../test/helpers/unleash-install.js'
import { rssMb, type Target } from './measure.js'
import { ONLY } from './settings.js'

export interface UnleashTarget extends Target {
  /** A personal access token: Unleash refuses admin tokens on its import. */
  pat?: string
  stop(): Promise<void>
  /** A user who may log in (the admin the launcher created, or UNLEASH_ADMIN_USER and UNLEASH_ADMIN_PASSWORD). */
  login?: { username: string; password: string }
}

/** BENCH_UNLEASH=1 starts Unleash on this PostgreSQL, in a database of its own; UNLEASH_URL names a running one. */
export async function unleashTarget (serverUrl: string): Promise<UnleashTarget | undefined> {
  if (process.env.UNLEASH_URL) {
    const headers = { authorization: process.env.UNLEASH_TOKEN ?? '', 'content-type': 'application/json' }
    const { UNLEASH_ADMIN_USER: username, UNLEASH_ADMIN_PASSWORD: password } = process.env
    return { base: process.env.UNLEASH_URL, headers, pat: process.env.UNLEASH_PAT, stop: async () => {}, ...(username && password && { login: { username, password } }) }
  }
  if (process.env.BENCH_UNLEASH !== '1') return undefined
  const databaseUrl = await createDatabase(serverUrl, 'unleash_bench')
  try {
    // The same pool size as ours (DATABASE_POOL_SIZE defaults to 20; Unleash's to 4), so that
    // the pool is not what the comparison measures; its limit of 5,000 flags raised, so that it
    // takes the 5,000-flag frontend set (and the whole run's flags).
    const unleash = await startUnleash({ databaseUrl, keepLog: true, env: { DATABASE_POOL_MAX: '20', UNLEASH_FEATURE_FLAGS_LIMIT: '50000' }, log: console.log })
    console.log(`Unleash ${UNLEASH_VERSION} at ${unleash.url}, started in ${unleash.startupMs} ms on a fresh database (log: ${unleash.logFile})`)
    return {
      base: unleash.url,
      headers: unleash.adminHeaders,
      pid: unleash.pid,
      login: unleash.admin,
      pat: ONLY === undefined || ONLY === 'import' || ONLY === 'playground' || ONLY === 'insight' ? await unleash.createPersonalAccessToken() : undefined,
      stop: async () => {
        console.log(`Unleash: RSS after the run: ${Math.round(rssMb(unleash.pid))} MB`)
        await unleash.stop()
        await dropDatabase(serverUrl, databaseUrl)
      },
    }
  } catch (error) {
    await dropDatabase(serverUrl, databaseUrl)
    throw error
  }
}
