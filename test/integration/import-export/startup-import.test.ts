/**
 * Flags as code: IMPORT_FILE imported at start-up, with Unleash's setting names; a bad file
 * stops the start naming the element, and nothing is applied.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { buildApp } from '../../../src/app.js'
import { createDatabase } from '../../../src/db/database.js'
import { openDatabase } from '../../../src/startup.js'
import { ADMIN_SECRET, auth, json, testConfig } from '../../helpers/app.js'
import { cloneTemplate, dropDatabase } from '../../helpers/database.js'
import { databaseFingerprint } from '../../helpers/state.js'

const quiet = { info: () => {}, warn: () => {} }
const dir = mkdtempSync(join(tmpdir(), 'ffapi-import-file-'))
let serverUrl = ''
let databaseUrl = ''

beforeAll(async () => {
  serverUrl = inject('postgresUrl')
  databaseUrl = await cloneTemplate(serverUrl)
})
afterAll(() => dropDatabase(serverUrl, databaseUrl))

const file = (name: string, content: unknown) => {
  const path = join(dir, name)
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content))
  return path
}

const flags = {
  features: [{ name: 'checkout-v2', type: 'release', description: 'the new checkout' }, { name: 'dark-mode', type: 'permission' }],
  featureStrategies: [
    { name: 'flexibleRollout', featureName: 'checkout-v2', parameters: { rollout: '25', stickiness: 'userId', groupId: 'checkout-v2' } },
    { name: 'default', featureName: 'dark-mode', constraints: [{ contextName: 'userId', operator: 'IN', values: ['ann', 'bob'] }] },
  ],
  featureEnvironments: [{ featureName: 'checkout-v2', enabled: true, variants: [] }, { featureName: 'dark-mode', enabled: true, variants: [] }],
  contextFields: [],
  featureTags: [{ featureName: 'dark-mode', tagType: 'simple', tagValue: 'ui' }],
  segments: [],
  tagTypes: [],
}

/** Starts as the server does (migrations, tokens, IMPORT_FILE), then the app on that database. */
async function start (env: Record<string, string>) {
  const config = testConfig(databaseUrl, env)
  const database = await openDatabase(config, quiet, () => {})
  const app = await buildApp(config, { database })
  return {
    app,
    async features () {
      const res = await app.inject({ url: '/api/admin/projects/default/features/checkout-v2', headers: auth() })
      return res.statusCode === 200 ? json(res) : undefined
    },
    async close () {
      await app.close()
      await database.db.destroy()
    },
  }
}

const devOf = (feature: any) => feature.environments.find((e: any) => e.name === 'development')

describe('IMPORT_FILE at start-up', () => {
  it('a bad file stops the start naming the element; nothing is applied', async () => {
    const bad = structuredClone(flags)
    ;(bad.featureStrategies[1]!.constraints![0] as { operator: string }).operator = 'SEMVER_EQ'
    const cases: [string, RegExp][] = [
      [file('bad.json', bad), /\/featureStrategies\/1\/constraints\/0\/value is required for the operator SEMVER_EQ/],
      [file('not-json.json', '{"features": ['), /it is not JSON/],
      [file('wrong-shape.json', { features: [{ name: 'a b' }], featureStrategies: [] }), /\/features\/0\/name must match pattern/],
      [join(dir, 'missing.json'), /cannot be read \(ENOENT\)/],
    ]
    const first = await start({})
    await first.close()
    const handle = await createDatabase(testConfig(databaseUrl))
    const before = await databaseFingerprint(handle.db)
    for (const [path, message] of cases) {
      await expect(start({ IMPORT_FILE: path })).rejects.toThrow(message)
      await expect(start({ IMPORT_FILE: path })).rejects.toThrow(`IMPORT_FILE ${path} was not imported, nothing was applied`)
    }
    expect(await databaseFingerprint(handle.db)).toEqual(before)
    await handle.db.destroy()
  })

  it('a file that names no feature (an export of nothing) starts the server and changes nothing', async () => {
    const first = await start({})
    await first.close()
    const handle = await createDatabase(testConfig(databaseUrl))
    const before = await databaseFingerprint(handle.db)
    const empty = { features: [], featureStrategies: [], featureEnvironments: [], contextFields: [], featureTags: [], segments: [], tagTypes: [], dependencies: [] }
    for (const data of [empty, { features: [], featureStrategies: [] }]) {
      const started = await start({ IMPORT_FILE: file('empty.json', data) })
      await started.close()
    }
    expect(await databaseFingerprint(handle.db)).toEqual(before)
    await handle.db.destroy()
  })

  it('the server refuses a file with one line naming the file and the element, no stack trace, and exits 1', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `startup-${i}`)
    const bad = {
      features: names.map((name) => ({ name })),
      featureStrategies: names.map((name, i) => ({ name: 'default', featureName: name, constraints: [{ contextName: 'version', operator: 'SEMVER_EQ', value: i === 19 ? 'v1' : '1.0.0' }] })),
    }
    const path = file('refused.json', bad)
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { ...process.env, DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'info', INIT_ADMIN_API_TOKENS: ADMIN_SECRET, IMPORT_FILE: path },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => { output += chunk })
    child.stderr.on('data', (chunk) => { output += chunk })
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    expect(code).toBe(1)
    const lines = output.split('\n').filter((line) => line.trim() !== '')
    const about = lines.filter((line) => line.includes('IMPORT_FILE'))
    expect(about, output).toHaveLength(1)
    expect(JSON.parse(about[0]!)).toMatchObject({
      level: 60,
      msg: `IMPORT_FILE ${path} was not imported, nothing was applied: /featureStrategies/19/constraints/0/value must be a valid semver version (strict semantic versioning, such as 1.2.3, 2.0.0-rc.1 or 1.2.3+build.5; no leading v)`,
    })
    expect(output).not.toMatch(/\bat .+:\d+:\d+|"stack"/)
  }, 60_000)

  it('imports the file; create-if-missing keeps changes made through the API across a restart, overwrite sets the file again', async () => {
    const path = file('flags.json', flags)
    const first = await start({ IMPORT_FILE: path, IMPORT_PROJECT: 'default', IMPORT_ENVIRONMENT: 'development' })
    const imported = await first.features()
    expect(imported).toMatchObject({ name: 'checkout-v2', description: 'the new checkout' })
    expect(devOf(imported)).toMatchObject({ enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '25' } }] })
    const creator = await first.app.inject({ url: '/api/admin/events?feature=checkout-v2', headers: auth() })
    expect(json(creator).events.map((e: any) => e.createdBy)).toContain('import-file')
    expect((await first.app.inject({ method: 'POST', url: '/api/admin/projects/default/features/checkout-v2/environments/development/off', headers: auth() })).statusCode).toBe(200)
    await first.close()

    const kept = await start({ IMPORT_FILE: path })
    expect(devOf(await kept.features()).enabled).toBe(false)
    await kept.close()

    const overwritten = await start({ IMPORT_FILE: path, IMPORT_MODE: 'overwrite' })
    expect(devOf(await overwritten.features()).enabled).toBe(true)
    await overwritten.close()
  })
})
