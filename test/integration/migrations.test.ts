import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createDatabase } from '../../src/db/database.js'
import { migrate } from '../../src/db/migrations.service.js'
import { openDatabase } from '../../src/startup.js'
import { normalizeVariant, serializeVariants } from '../../src/variants/variants.js'
import { testConfig } from '../helpers/app.js'
import { dropDatabase, withClient, withDatabase } from '../helpers/database.js'

const serverUrl = inject('postgresUrl')
const created: string[] = []

/** An empty database of this test's own. */
async function emptyDatabase () {
  const name = `ffapi_migration_${randomBytes(5).toString('hex')}`
  await withClient(serverUrl, (c) => c.query(`CREATE DATABASE ${name}`))
  const url = withDatabase(serverUrl, name)
  created.push(url)
  return url
}

afterAll(async () => {
  for (const url of created) await dropDatabase(serverUrl, url)
})

describe('migrations', () => {
  it('0002 rewrites stored variants into exactly the text the service writes', async () => {
    const url = await emptyDatabase()
    const tricky = [
      { weight: 500, name: 'quote " and \\ backslash', stickiness: 'userId', weightType: 'fix' },
      {
        name: 'unicode é ✓ 😀 and controls \u0001\u001f\b\f\n\r\t and $$ and \u007f',
        weight: 500,
        payload: { value: '{"a": [1, 2]}', type: 'json' },
        overrides: [{ values: ['x', 'y "z"', '\u2028'], contextName: 'userId' }, { contextName: 'appName', values: [] }],
      },
      { name: 'minimal', weight: 0 },
    ]
    await withClient(url, async (c) => {
      await c.query(readFileSync('migrations/0001_initial.sql', 'utf8'))
      await c.query('CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())')
      await c.query("INSERT INTO schema_migrations (name) VALUES ('0001_initial.sql')")
      await c.query("INSERT INTO features (name, project_id) VALUES ('old', 'default')")
      await c.query(
        "INSERT INTO feature_environments (feature_name, environment_name, variants) VALUES ('old', 'development', $1::jsonb), ('old', 'production', '[]')",
        [JSON.stringify(tricky)]
      )
    })
    const database = await createDatabase(testConfig(url))
    try {
      expect(await migrate(database.db)).toContain('0002_variants_as_json_text.sql')
      const rows = await database.db
        .selectFrom('feature_environments')
        .select(['environment_name', 'variants'])
        .orderBy('environment_name')
        .execute()
      const expected = serializeVariants(
        tricky.map((v) => normalizeVariant({ weightType: 'variable', stickiness: 'default', ...v } as never))
      )
      expect(rows).toEqual([
        { environment_name: 'development', variants: expected },
        { environment_name: 'production', variants: '[]' },
      ])
    } finally {
      await database.db.destroy()
    }
  })

  it('the service refuses to start when no API token exists and none is configured', async () => {
    const url = await emptyDatabase()
    const log = { info () {}, warn () {} }
    await expect(openDatabase(testConfig(url), log)).rejects.toThrow(/No API token exists and INIT_ADMIN_API_TOKENS is empty, and no user exists/)
    const database = await openDatabase(testConfig(url, { INIT_ADMIN_API_TOKENS: 'first-secret' }), log)
    await database.db.destroy()
  })
})
