/**
 * Scheduled change requests: applied within 2 s of their time; exactly once with two
 * instances on one database (events counted); applied at start-up by an instance started after
 * the time passed while none ran; one that cannot apply (the flag archived, a segment gone, the
 * person who scheduled it deleted) keeps its state with its schedule suspended or failed, a
 * reason, an event and a webhook.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest'
import { type App, buildApp } from '../../../src/app.js'
import { createDatabase, type DatabaseHandle } from '../../../src/db/database.js'
import { auth, testConfig, uniqueName } from '../../helpers/app.js'
import { cloneTemplate, dropDatabase } from '../../helpers/database.js'
import { PASSWORD } from '../../helpers/people.js'
import { eventually } from '../../helpers/eventually.js'
import { receiversForThisFile } from '../../helpers/receiver.js'

const serverUrl = inject('postgresUrl')
const receiver = receiversForThisFile()
const databases: string[] = []
const running = new Set<{ app: App; database: DatabaseHandle }>()
afterAll(async () => {
  for (const instance of running) await stop(instance)
  for (const url of databases) await dropDatabase(serverUrl, url)
})

async function newDatabase () {
  const url = await cloneTemplate(serverUrl)
  databases.push(url)
  return url
}

/** An instance of the server on `databaseUrl`, ready (its scheduler started). */
async function start (databaseUrl: string) {
  const config = testConfig(databaseUrl, { CLIENT_STATE_CACHE_MS: '0', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8', WEBHOOK_POLL_MS: '100' })
  const database = await createDatabase(config)
  const app = await buildApp(config, { database })
  await app.ready()
  const instance = { app, database }
  running.add(instance)
  return instance
}

async function stop (instance: { app: App; database: DatabaseHandle }) {
  running.delete(instance)
  await instance.app.close()
  await instance.database.db.destroy()
}

type Instance = Awaited<ReturnType<typeof start>>

const send = async (app: App, method: string, url: string, payload?: unknown, headers: Record<string, string> = auth()) => {
  const res = await app.inject({ method: method as never, url, headers, ...(payload !== undefined && { payload: payload as object }) })
  return { status: res.statusCode, body: res.body === '' ? undefined : res.json() }
}

/** A person signed in through `app`: their id and the cookie header of their session. */
async function person (app: App, rootRole: 'Editor' | 'Admin') {
  const username = uniqueName('u')
  const created = await send(app, 'POST', '/api/admin/user-admin', { username, rootRole, password: PASSWORD })
  const login = await app.inject({ method: 'POST', url: '/auth/simple/login', payload: { username, password: PASSWORD } })
  const cookie = String(login.headers['set-cookie']).split(';')[0]!
  return { id: created.body.id as number, login: username, headers: { cookie } }
}

/** In `app`: a project with production guarded, a feature, and Alice's request to switch it on, approved by Bob. */
async function approvedRequest (app: App, change?: (project: string, feature: string) => Promise<object>) {
  const project = uniqueName('p')
  await send(app, 'POST', '/api/admin/projects', { id: project, name: project })
  await send(app, 'POST', `/api/admin/projects/${project}/environments`, { environment: 'production' })
  await send(app, 'PUT', `/api/admin/projects/${project}/environments/production/change-requests/config`, { changeRequestsEnabled: true })
  const feature = uniqueName('f')
  await send(app, 'POST', `/api/admin/projects/${project}/features`, { name: feature })
  const [alice, bob] = [await person(app, 'Editor'), await person(app, 'Editor')]
  const body = change ? await change(project, feature) : { feature, action: 'updateEnabled', payload: { enabled: true } }
  const added = await send(app, 'POST', `/api/admin/projects/${project}/environments/production/change-requests`, body, alice.headers)
  if (added.status !== 200) throw new Error(JSON.stringify(added.body))
  const id = added.body.id as number
  const url = `/api/admin/projects/${project}/change-requests/${id}`
  expect((await send(app, 'PUT', `${url}/state`, { state: 'In review' }, alice.headers)).status).toBe(200)
  expect((await send(app, 'PUT', `${url}/state`, { state: 'Approved' }, bob.headers)).status).toBe(200)
  return { project, feature, id, url, alice, bob }
}

const schedule = async (app: App, request: Awaited<ReturnType<typeof approvedRequest>>, inMs: number) => {
  const scheduledAt = new Date(Date.now() + inMs).toISOString()
  const res = await send(app, 'PUT', `${request.url}/state`, { state: 'Scheduled', scheduledAt }, request.bob.headers)
  expect(res.body).toMatchObject({ state: 'Scheduled', schedule: { scheduledAt, status: 'pending' } })
  return scheduledAt
}

const eventsOf = async (app: App, project: string) => (await send(app, 'GET', `/api/admin/events?project=${project}&limit=100`)).body.events as any[]

describe('scheduled change requests', () => {
  let a: Instance
  let b: Instance
  beforeAll(async () => {
    const url = await newDatabase()
    a = await start(url)
    b = await start(url)
  })

  it('applied within 2 s of scheduledAt, with its events (the writes name the request, its author, and who scheduled it)', async () => {
    const request = await approvedRequest(a.app)
    const scheduledAt = await schedule(a.app, request, 1500)
    const applied = await eventually(async () => {
      const read = (await send(a.app, 'GET', request.url)).body
      return read.state === 'Applied' ? read : undefined
    }, 'the scheduled request is applied', 10_000)
    const late = Date.parse(applied.stateTimestamps.Applied) - Date.parse(scheduledAt)
    expect(late).toBeGreaterThanOrEqual(0)
    expect(late).toBeLessThan(2000)
    expect(applied.schedule).toBeUndefined()
    const events = await eventsOf(a.app, request.project)
    const enabled = events.find((e) => e.type === 'feature-environment-enabled')
    expect(enabled).toMatchObject({ createdBy: request.bob.login, changeRequest: { id: request.id, createdBy: request.alice.login, appliedBy: request.bob.login } })
    expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['change-request-scheduled', 'change-request-applied', 'change-request-scheduled-application-success']))
  })

  it('two instances on one database: each due request applied exactly once', async () => {
    const requests = []
    for (let i = 0; i < 6; i++) requests.push(await approvedRequest(i % 2 === 0 ? a.app : b.app))
    const at = Date.now() + 1500
    for (const [i, r] of requests.entries()) {
      const app = i % 2 === 0 ? b.app : a.app
      expect((await send(app, 'PUT', `${r.url}/state`, { state: 'Scheduled', scheduledAt: new Date(at).toISOString() }, r.bob.headers)).status).toBe(200)
    }
    for (const r of requests) {
      await eventually(async () => ((await send(a.app, 'GET', r.url)).body.state === 'Applied' ? true : undefined), 'the scheduled request is applied', 10_000)
    }
    await sleep(1500)
    for (const r of requests) {
      const types = (await eventsOf(b.app, r.project)).map((e) => e.type)
      expect(types.filter((x) => x === 'change-request-applied')).toHaveLength(1)
      expect(types.filter((x) => x === 'change-request-scheduled-application-success')).toHaveLength(1)
      expect(types.filter((x) => x === 'feature-environment-enabled')).toHaveLength(1)
      expect(types.filter((x) => x === 'feature-strategy-add')).toHaveLength(1)
    }
  })

  it('one that cannot apply keeps its state: suspended (the flag archived since), with a reason, an event and a webhook; failed (a write refused); suspended (the person who scheduled it deleted)', async () => {
    const r = await receiver()
    const hook = await send(a.app, 'POST', '/api/admin/addons', {
      provider: 'webhook',
      enabled: true,
      events: ['change-request-schedule-suspended', 'change-request-scheduled-application-failure'],
      parameters: { url: r.url },
    })
    r.secrets = [hook.body.signingSecret]
    const archived = await approvedRequest(a.app)
    await schedule(a.app, archived, 800)
    expect((await send(a.app, 'DELETE', `/api/admin/projects/${archived.project}/features/${archived.feature}`)).status).toBe(202)
    let segment = 0
    const refused = await approvedRequest(a.app, async (project, feature) => {
      segment = (await send(a.app, 'POST', '/api/admin/segments', { name: uniqueName('seg'), project, constraints: [] })).body.id
      return { feature, action: 'addStrategy', payload: { name: 'default', segments: [segment] } }
    })
    await schedule(a.app, refused, 800)
    expect((await send(a.app, 'DELETE', `/api/admin/segments/${segment}`)).status).toBe(204)
    const orphan = await approvedRequest(a.app)
    await schedule(a.app, orphan, 800)
    expect((await send(a.app, 'DELETE', `/api/admin/user-admin/${orphan.bob.id}`)).status).toBe(200)
    const schedules = await eventually(async () => {
      const reads = await Promise.all([archived, refused, orphan].map(async (x) => (await send(a.app, 'GET', x.url)).body))
      return reads.every((x) => x.schedule?.status !== 'pending') ? reads : undefined
    }, 'every schedule leaves pending', 10_000)
    expect(schedules.map((x) => [x.state, x.schedule.status])).toEqual([['Scheduled', 'suspended'], ['Scheduled', 'failed'], ['Scheduled', 'suspended']])
    expect(schedules[0].schedule.reason).toMatch(/Feature has been archived/)
    expect(schedules[1].schedule).toMatchObject({ reason: expect.stringMatching(/names no segment/), failureReason: expect.stringMatching(/names no segment/) })
    expect(schedules[2].schedule.reason).toMatch(/The user who scheduled this change request .* has been deleted/)
    const received = await r.waitFor(3)
    const delivered = received.map((x) => JSON.parse(x.body))
    expect(delivered.map((e) => [e.type, e.data.changeRequestId]).sort()).toEqual([
      ['change-request-schedule-suspended', archived.id],
      ['change-request-schedule-suspended', orphan.id],
      ['change-request-scheduled-application-failure', refused.id],
    ].sort())
    expect(received.every((x) => x.verifiedWith.length === 1)).toBe(true)
    // A person reschedules or rejects it.
    const again = await send(a.app, 'PUT', `${refused.url}/state`, { state: 'Scheduled', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() }, refused.bob.headers)
    expect(again.body.schedule.status).toBe('pending')
    expect((await send(a.app, 'PUT', `${archived.url}/state`, { state: 'Rejected' }, archived.bob.headers)).body.state).toBe('Rejected')
  })
})

describe('a restart', () => {
  it('an instance started after the time passed while none ran applies it at start-up', async () => {
    const url = await newDatabase()
    const first = await start(url)
    const request = await approvedRequest(first.app)
    const scheduledAt = await schedule(first.app, request, 1500)
    await stop(first)
    await sleep(Math.max(0, Date.parse(scheduledAt) - Date.now()) + 500)
    const second = await start(url)
    const started = Date.now()
    const applied = await eventually(async () => {
      const read = (await send(second.app, 'GET', request.url)).body
      return read.state === 'Applied' ? read : undefined
    }, 'the scheduled request is applied by the second instance', 10_000)
    expect(Date.parse(applied.stateTimestamps.Applied) - started).toBeLessThan(2000)
    const types = (await eventsOf(second.app, request.project)).map((e) => e.type)
    expect(types.filter((x) => x === 'change-request-applied')).toHaveLength(1)
  })
})
