/**
 * Archive and revive serialise with every feature write (the feature row is locked first, by
 * everyone), and a 404 or 409 is explained from the same snapshot as the lookup.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import { auth, createFeature, useTestApp } from '../../helpers/app.js'
import { eventsOf } from '../../helpers/state.js'

const t = useTestApp()
const base = '/api/admin/projects/default/features'
const variantsUrl = (feature: string) => `${base}/${feature}/environments/development/variants`

describe('archive serialises with writes', () => {
  for (const [what, write] of [
    ['a PATCH', (f: string) => t.app.inject({ method: 'PATCH', url: variantsUrl(f), headers: auth(), payload: [{ op: 'add', path: '/-', value: { name: 'late', weight: 0 } }] })],
    ['switching on', (f: string) => t.app.inject({ method: 'POST', url: `${base}/${f}/environments/development/on`, headers: auth() })],
  ] as const) {
    it(`${what} waiting on the feature-environment's row lands before the archive is answered, never after it`, async () => {
      const feature = await createFeature(t.app)
      const holder = new pg.Client({ connectionString: t.databaseUrl })
      await holder.connect()
      try {
        await holder.query('BEGIN')
        await holder.query("SELECT 1 FROM feature_environments WHERE feature_name = $1 AND environment_name = 'development' FOR UPDATE", [feature])
        const order: string[] = []
        const writing = write(feature).then((res) => { order.push(`write ${res.statusCode}`); return res })
        await sleep(200)
        const archiving = t.app.inject({ method: 'DELETE', url: `${base}/${feature}`, headers: auth() }).then((res) => {
          order.push(`archive ${res.statusCode}`)
          return res
        })
        await sleep(300)
        await holder.query('COMMIT')
        await Promise.all([writing, archiving])
        expect(order).toEqual(['write 200', 'archive 202'])
        const types = (await eventsOf(t.database.db, feature)).map((e) => e.type)
        expect(types.at(-1)).toBe('feature-archived')
      } finally {
        await holder.end()
      }
    })
  }

  it('writes racing archive and revive: every write lands on a live feature (no change event between archived and revived)', async () => {
    const feature = await createFeature(t.app)
    const running = { on: true }
    const writer = async () => {
      let i = 0
      while (running.on) {
        await t.app.inject({ method: 'PATCH', url: variantsUrl(feature), headers: auth(), payload: [{ op: 'replace', path: '', value: [{ name: `v${i++}`, weight: 0 }] }] })
      }
    }
    const writers = [writer(), writer(), writer()]
    for (let i = 0; i < 15; i++) {
      await t.app.inject({ method: 'DELETE', url: `${base}/${feature}`, headers: auth() })
      await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [feature] } })
    }
    running.on = false
    await Promise.all(writers)
    let archived = false
    for (const event of await eventsOf(t.database.db, feature)) {
      if (event.type === 'feature-archived') archived = true
      if (event.type === 'feature-revived') archived = false
      if (event.type === 'feature-environment-variants-updated') expect(archived).toBe(false)
    }
  })
})

describe('404s and 409s under archive and revive races', () => {
  it('a feature that exists is never "not found": it is served, or 409 while archived', async () => {
    const feature = await createFeature(t.app)
    const running = { on: true }
    const statuses = new Map<string, number>()
    const reader = async () => {
      while (running.on) {
        const res = await t.app.inject({ method: 'GET', url: variantsUrl(feature), headers: auth() })
        const key = `${res.statusCode} ${res.statusCode === 200 ? '' : res.json().message}`
        statuses.set(key, (statuses.get(key) ?? 0) + 1)
      }
    }
    const readers = [reader(), reader(), reader(), reader()]
    for (let i = 0; i < 30; i++) {
      await t.app.inject({ method: 'DELETE', url: `${base}/${feature}`, headers: auth() })
      await t.app.inject({ method: 'POST', url: '/api/admin/projects/default/revive', headers: auth(), payload: { features: [feature] } })
    }
    running.on = false
    await Promise.all(readers)
    const seen = [...statuses.keys()]
    expect(seen.every((key) => key.startsWith('200') || key.startsWith('409')), JSON.stringify(Object.fromEntries(statuses))).toBe(true)
  })
})
