/**
 * npm run unleash: Unleash 8.2 on the PostgreSQL the tests find (or on DATABASE_URL), with its
 * URL and tokens printed, until Ctrl-C. Its database is made for it and dropped at the end,
 * unless DATABASE_URL names one (kept, so a second start finds its flags again).
 */
import { createDatabase, dropDatabase } from '../helpers/database.js'
import { findPostgres } from '../helpers/postgres.js'
import { startUnleash } from '../helpers/unleash.js'

const given = process.env.DATABASE_URL
const postgres = given ? undefined : await findPostgres()
const databaseUrl = given ?? (await createDatabase((postgres as { url: string }).url, 'unleash'))
const where = postgres ? `${new URL(databaseUrl).pathname.slice(1)} on PostgreSQL from ${postgres.source}` : 'DATABASE_URL'
const port = process.env.PORT ? Number(process.env.PORT) : undefined

try {
  const unleash = await startUnleash({ databaseUrl, port, keepLog: true, log: console.log })
  const pat = await unleash.createPersonalAccessToken()
  console.log(`
Unleash 8.2 at ${unleash.url} (started in ${unleash.startupMs} ms, pid ${unleash.pid})
  database:               ${where}
  admin API token:        ${unleash.adminToken}
  client token (development): ${await unleash.createClientToken()}
  frontend token (development): ${await unleash.createFrontendToken()}
  personal access token:  ${pat}
  log in to its UI as:    ${unleash.admin.username} / ${unleash.admin.password}
  log:                    ${unleash.logFile}

For the bench: UNLEASH_URL=${unleash.url} UNLEASH_TOKEN='${unleash.adminToken}' npm run bench
Ctrl-C stops it.`)
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  await unleash.stop()
} finally {
  if (postgres) {
    await dropDatabase(postgres.url, databaseUrl)
    await postgres.stop()
  }
}
