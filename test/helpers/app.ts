import { randomBytes } from 'node:crypto'
import { Writable } from 'node:stream'
import type { FastifyBaseLogger, LightMyRequestResponse } from 'fastify'
import pino from 'pino'
import { afterAll, beforeAll, inject } from 'vitest'
import { type App, type AppDeps, buildApp } from '../../src/app.js'
import { type Config, loadConfig } from '../../src/config.js'
import { createDatabase, type DatabaseHandle } from '../../src/db/database.js'
import { loggerOptions } from '../../src/logger.js'
import { checkContract, type RecordedResponse, recordResponses } from './contract.js'
import { ADMIN_SECRET, cloneTemplate, dropDatabase } from './database.js'

export { ADMIN_SECRET }

export interface TestApp {
  app: App
  database: DatabaseHandle
  config: Config
  databaseUrl: string
  /** Every response the app sent so far, with the route the router matched (undefined: none). */
  responses: RecordedResponse[]
  /** Closes the app; `afterAppClosed` may then still read the database, before it is dropped. */
  close(afterAppClosed?: () => Promise<void>): Promise<void>
}

/** A unique, URL-friendly name, so tests in one database never collide. */
export const uniqueName = (prefix = 'f') => `${prefix}-${randomBytes(5).toString('hex')}`

export function testConfig (databaseUrl: string, env: Record<string, string> = {}): Config {
  // Password hashes at a test cost (scrypt N=2^12): tests log in often; the default is 17.
  return loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent', PASSWORD_HASH_COST: '12', ...env })
}

/** The real app on a database of its own, cloned from the migrated template. */
export async function buildTestApp (env: Record<string, string> = {}, deps: Omit<AppDeps, 'database'> = {}, logger?: FastifyBaseLogger): Promise<TestApp> {
  const serverUrl = inject('postgresUrl')
  const databaseUrl = await cloneTemplate(serverUrl)
  const config = testConfig(databaseUrl, env)
  const database = await createDatabase(config)
  const app = await buildApp(config, { ...deps, database }, logger)
  const responses = recordResponses(app)
  await app.ready()
  return {
    app,
    database,
    config,
    databaseUrl,
    responses,
    async close (afterAppClosed?: () => Promise<void>) {
      // Every response the tests provoked must be what the OpenAPI document promises.
      const violations = await checkContract(app, responses)
      await app.close()
      try {
        await afterAppClosed?.()
      } finally {
        await database.db.destroy()
        await dropDatabase(serverUrl, databaseUrl)
      }
      if (violations.length > 0) {
        throw new Error(`${violations.length} responses disagree with the OpenAPI document:\n${violations.slice(0, 30).join('\n')}`)
      }
    },
  }
}

/**
 * The real app (as buildTestApp) logging every line at trace level, formatted and redacted as in
 * production, into `lines`: for the tests that no secret reaches the log.
 */
export async function buildLoggedApp (env: Record<string, string> = {}, deps: Omit<AppDeps, 'database'> = {}) {
  const lines: string[] = []
  const sink = new Writable({
    write (chunk, _encoding, done) {
      lines.push(String(chunk))
      done()
    },
  })
  const t = await buildTestApp({ LOG_LEVEL: 'trace', ...env }, deps, pino(loggerOptions('trace'), sink))
  return Object.assign(t, { lines, log: () => lines.join('') })
}

/**
 * The app for one test file: built before its tests, closed (and its database dropped)
 * after them. The returned object is filled in by beforeAll.
 */
export function useTestApp (env: Record<string, string> = {}, deps: Omit<AppDeps, 'database'> = {}): TestApp {
  const t = {} as TestApp
  beforeAll(async () => {
    Object.assign(t, await buildTestApp(env, deps))
  })
  afterAll(() => t.close())
  return t
}

export const auth = (secret = ADMIN_SECRET) => ({ authorization: secret })

// Tests read response bodies loosely and assert on them.
export const json = (res: LightMyRequestResponse): any => res.json()

/** Creates a feature in a project through the API and returns its name. */
export async function createFeature (app: App, project = 'default', name = uniqueName()) {
  const res = await app.inject({
    method: 'POST',
    url: `/api/admin/projects/${project}/features`,
    headers: auth(),
    payload: { name },
  })
  if (res.statusCode !== 201) throw new Error(`feature not created: ${res.body}`)
  return name
}

/** Creates a token through the API and returns its secret. */
export async function createToken (
  app: App,
  scope: { projects?: string[]; environments?: string[]; type?: 'client' | 'frontend' | 'admin'; environment?: string },
  tokenName = uniqueName('token')
) {
  const res = await app.inject({
    method: 'POST',
    url: '/api/admin/api-tokens',
    headers: auth(),
    payload: { tokenName, ...scope },
  })
  if (res.statusCode !== 201) throw new Error(`token not created: ${res.body}`)
  return json(res).secret as string
}

export interface DocumentedRoute {
  method: string
  /** The route pattern, `:name` for parameters. */
  url: string
}

/** Every operation of the served OpenAPI document: the route table, as users see it. */
export async function documentedRoutes (app: App): Promise<DocumentedRoute[]> {
  const doc = json(await app.inject({ method: 'GET', url: '/docs/json' }))
  return Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([path, operations]) =>
    Object.keys(operations).map((method) => ({ method: method.toUpperCase(), url: path.replace(/\{(\w+)\}/g, ':$1') }))
  )
}

/** Asserts the common error body and returns it. */
export function expectProblem (res: LightMyRequestResponse, status: number, name: string) {
  const body = json(res)
  const summary = `${res.statusCode} ${res.body}`
  if (res.statusCode !== status || body.name !== name) {
    throw new Error(`expected ${status} ${name}, got ${summary}`)
  }
  if (!String(res.headers['content-type']).startsWith('application/problem+json')) {
    throw new Error(`expected application/problem+json, got ${res.headers['content-type']}`)
  }
  for (const key of ['type', 'title', 'status', 'detail', 'id', 'name', 'message', 'details']) {
    if (!(key in body)) throw new Error(`error body lacks ${key}: ${summary}`)
  }
  if (body.status !== status || body.message !== body.detail || !Array.isArray(body.details)) {
    throw new Error(`inconsistent error body: ${summary}`)
  }
  return body
}
