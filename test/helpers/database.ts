import { randomBytes } from 'node:crypto'
import pg from 'pg'

export const TEMPLATE_DATABASE = 'ffapi_template'
export const ADMIN_SECRET = 'test-admin-secret'

export function withDatabase (url: string, database: string): string {
  const u = new URL(url)
  u.pathname = `/${database}`
  return u.toString()
}

export async function withClient<T> (url: string, fn: (client: pg.Client) => Promise<T>) {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end()
  }
}

/** A fresh database cloned from the migrated template: each test file gets its own. */
export async function cloneTemplate (serverUrl: string): Promise<string> {
  const name = `ffapi_test_${randomBytes(6).toString('hex')}`
  await withClient(serverUrl, (c) =>
    c.query(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`)
  )
  return withDatabase(serverUrl, name)
}

export async function dropDatabase (serverUrl: string, databaseUrl: string) {
  const name = new URL(databaseUrl).pathname.slice(1)
  await withClient(serverUrl, (c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
}

/** A fresh empty database (for a server that migrates its own, such as Unleash). */
export async function createDatabase (serverUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  return withDatabase(serverUrl, name)
}
