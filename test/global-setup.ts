import type { TestProject } from 'vitest/node'
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/startup.js'
import { ADMIN_SECRET, TEMPLATE_DATABASE, withClient, withDatabase } from './helpers/database.js'
import { findPostgres } from './helpers/postgres.js'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Server URL (maintenance database) of the PostgreSQL the run uses. */
    postgresUrl: string
  }
}

const quiet = { info () {}, warn () {} }

/** One PostgreSQL for the whole run and one migrated template database, cloned per test file. */
export default async function setup (project: TestProject) {
  const postgres = await findPostgres()
  console.log(`tests use PostgreSQL from ${postgres.source}`)
  // CI sets this to prove the source it provisioned is the one used.
  const required = process.env.TEST_POSTGRES_SOURCE
  if (required && required !== postgres.source) {
    await postgres.stop()
    throw new Error(`TEST_POSTGRES_SOURCE is ${required}, but the tests found PostgreSQL from ${postgres.source}`)
  }
  await withClient(postgres.url, async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`)
    await c.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`)
  })
  const config = loadConfig({
    DATABASE_URL: withDatabase(postgres.url, TEMPLATE_DATABASE),
    INIT_ADMIN_API_TOKENS: ADMIN_SECRET,
  })
  const database = await openDatabase(config, quiet)
  await database.db.destroy()
  project.provide('postgresUrl', postgres.url)
  return async () => {
    await postgres.stop()
  }
}
