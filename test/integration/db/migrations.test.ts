import { randomBytes } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { createDatabase } from '../../../src/db/database.js'
import { migrate } from '../../../src/db/migrator.js'
import { openDatabase } from '../../../src/startup.js'
import { normalizeVariant, serializeVariants } from '../../../src/variants/variants.js'
import { testConfig } from '../../helpers/app.js'
import { dropDatabase, withClient, withDatabase } from '../../helpers/database.js'

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

  it('0014 keeps every stored usage count and when each feature was last evaluated per environment', async () => {
    const url = await emptyDatabase()
    const before = readdirSync('migrations').filter((f) => /^\d{4}_.+\.sql$/.test(f) && f < '0014').sort()
    await withClient(url, async (c) => {
      await c.query('CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())')
      for (const file of before) {
        await c.query(readFileSync(`migrations/${file}`, 'utf8'))
        await c.query('INSERT INTO schema_migrations (name) VALUES ($1)', [file])
      }
      await c.query(`INSERT INTO usage_applications (token_name, environment, projects, app_name) VALUES
        ('t', 'development', '["*"]', 'web'), ('t', 'production', '["*"]', 'web'), ('u', 'development', '["*"]', 'api')`)
      await c.query(`INSERT INTO usage_counts (feature_name, application_id, hour, yes, no, variants, last_seen_at) VALUES
        ('f', 1, '2026-11-01T10:00Z', 5, 1, '{"blue": 3}', '2026-11-01T10:40Z'),
        ('f', 1, '2026-11-01T11:00Z', 2, 0, '{}', '2026-11-01T11:05Z'),
        ('f', 3, '2026-11-01T11:00Z', 7, 7, '{}', '2026-11-01T11:30Z'),
        ('f', 2, '2026-11-01T09:00Z', 1, 0, '{}', '2026-11-01T09:01Z'),
        ('g', 2, '2026-11-01T09:00Z', 0, 4, '{"x": 4}', '2026-11-01T09:59Z')`)
    })
    const database = await createDatabase(testConfig(url))
    try {
      expect(await migrate(database.db)).toContain('0014_compact_usage_counts.sql')
      const counts = await withClient(url, async (c) => (await c.query(
        "SELECT feature_name, application_id, to_char(hour AT TIME ZONE 'UTC', 'HH24') AS hour, yes, no, variants FROM usage_counts ORDER BY feature_name, application_id, hour"
      )).rows)
      expect(counts).toEqual([
        { feature_name: 'f', application_id: 1, hour: '10', yes: '5', no: '1', variants: { blue: 3 } },
        { feature_name: 'f', application_id: 1, hour: '11', yes: '2', no: '0', variants: {} },
        { feature_name: 'f', application_id: 2, hour: '09', yes: '1', no: '0', variants: {} },
        { feature_name: 'f', application_id: 3, hour: '11', yes: '7', no: '7', variants: {} },
        { feature_name: 'g', application_id: 2, hour: '09', yes: '0', no: '4', variants: { x: 4 } },
      ])
      const evaluated = await withClient(url, async (c) => (await c.query(
        "SELECT feature_name, environment, to_char(last_seen_at AT TIME ZONE 'UTC', 'HH24:MI') AS at FROM usage_evaluations ORDER BY feature_name, environment"
      )).rows)
      expect(evaluated).toEqual([
        { feature_name: 'f', environment: 'development', at: '11:30' },
        { feature_name: 'f', environment: 'production', at: '09:01' },
        { feature_name: 'g', environment: 'production', at: '09:59' },
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
