/**
 * The official client specification (@unleash/client-specification), written through this
 * service's admin API and read back by the official Node SDK from a listening server.
 */
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { InMemStorageProvider, Unleash } from 'unleash-client'
import type { App } from '../../src/app.js'
import { auth, json, uniqueName } from './app.js'

const require = createRequire(import.meta.url)
const SPEC_DIR = join(dirname(require.resolve('@unleash/client-specification/package.json')), 'specifications')

export interface SpecStrategy {
  name: string
  parameters?: Record<string, string>
  constraints?: unknown[]
  segments?: number[]
  variants?: unknown[]
}

export interface SpecFeature {
  name: string
  enabled: boolean
  strategies?: SpecStrategy[]
  variants?: { name: string; weight: number; stickiness?: string; payload?: unknown; overrides?: unknown }[]
  impressionData?: boolean
  dependencies?: unknown[]
  project?: string
  type?: string
}

export interface SpecFile {
  name: string
  state: { version: number; features?: SpecFeature[]; segments?: unknown[]; events?: unknown[] }
  tests?: { description: string; context: Record<string, unknown>; toggleName: string; expectedResult: boolean }[]
  variantTests?: { description: string; context: Record<string, unknown>; toggleName: string; expectedResult: Record<string, unknown> }[]
}

export const specFiles = (): string[] =>
  (JSON.parse(readFileSync(join(SPEC_DIR, 'index.json'), 'utf8')) as string[])

export const loadSpec = (file: string): SpecFile => JSON.parse(readFileSync(join(SPEC_DIR, file), 'utf8')) as SpecFile

/** Parameters of the strategies the SDKs know but no longer built in anywhere: defined as custom ones. */
const LEGACY_DEFINITIONS: Record<string, { name: string; type: string }[]> = {
  gradualRolloutUserId: [{ name: 'percentage', type: 'percentage' }, { name: 'groupId', type: 'string' }],
  gradualRolloutSessionId: [{ name: 'percentage', type: 'percentage' }, { name: 'groupId', type: 'string' }],
  gradualRolloutRandom: [{ name: 'percentage', type: 'percentage' }],
}

export interface WrittenState {
  /** Features the service refused, with the message of its 400. */
  refused: Map<string, string>
}

async function call (app: App, method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) {
  const res = await app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload: payload as object }) })
  return { status: res.statusCode, body: res.body ? json(res) : undefined }
}

/**
 * Writes a specification state through the admin API, feature by feature, in the
 * `development` environment of `project`. A feature any part of which the service refuses
 * (with a 400) is recorded as refused with the refusal's message, and left out.
 */
export async function writeState (app: App, state: SpecFile['state'], project = 'default'): Promise<WrittenState> {
  const refused = new Map<string, string>()
  const defined = new Set((json(await app.inject({ method: 'GET', url: '/api/admin/strategies', headers: auth() })).strategies as { name: string }[]).map((s) => s.name))
  for (const feature of state.features ?? []) {
    const base = `/api/admin/projects/${project}/features`
    const refuse = (what: string, res: { status: number; body: unknown }) => {
      if (res.status !== 400) throw new Error(`${feature.name}: ${what} answered ${res.status} ${JSON.stringify(res.body)}`)
      refused.set(feature.name, (res.body as { message: string }).message)
    }
    const created = await call(app, 'POST', base, { name: feature.name })
    if (created.status !== 201) {
      refuse('creating it', created)
      continue
    }
    const url = `${base}/${encodeURIComponent(feature.name)}/environments/development`
    let ok = true
    for (const strategy of feature.strategies ?? []) {
      if (!defined.has(strategy.name)) {
        const parameters = LEGACY_DEFINITIONS[strategy.name] ?? Object.keys(strategy.parameters ?? {}).map((name) => ({ name, type: 'string' }))
        const res = await call(app, 'POST', '/api/admin/strategies', { name: strategy.name, parameters })
        if (res.status !== 201) throw new Error(`defining ${strategy.name}: ${res.status}`)
        defined.add(strategy.name)
      }
      const res = await call(app, 'POST', `${url}/strategies`, strategy)
      if (res.status !== 200) {
        refuse(`strategy ${strategy.name}`, res)
        ok = false
        break
      }
    }
    if (ok && feature.variants !== undefined && feature.variants.length > 0) {
      const res = await call(app, 'PUT', `${url}/variants`, feature.variants)
      if (res.status !== 200) {
        refuse('variants', res)
        ok = false
      }
    }
    if (ok && feature.enabled) {
      const res = await call(app, 'POST', `${url}/on`)
      if (res.status !== 200) throw new Error(`${feature.name}: switching on answered ${res.status}`)
    }
  }
  return { refused }
}

/** A client token of the `development` environment. */
export async function clientSecret (app: App): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('spec'), type: 'client', environment: 'development' } })
  return json(res).secret as string
}

/** The official Node SDK on `base` (a listening server), synchronised once. */
export async function startSdk (base: string, secret: string): Promise<Unleash> {
  const sdk = new Unleash({
    url: `${base}/api/`,
    appName: uniqueName('spec-sdk'),
    customHeaders: { Authorization: secret },
    refreshInterval: 60_000,
    disableMetrics: true,
    skipInstanceCountWarning: true,
    storageProvider: new InMemStorageProvider(),
  })
  sdk.on('error', () => {})
  await once(sdk, 'synchronized')
  return sdk
}

export interface CaseResult {
  file: string
  kind: 'test' | 'variantTest'
  description: string
  toggleName: string
  outcome: 'reproduced' | 'refused' | 'differs'
  /** For refused: the refusal; for differs: what the SDK answered. */
  detail?: string
}

/** Runs every case of a file against the SDK, given what the service refused of its state. */
export function runCases (file: string, spec: SpecFile, sdk: Unleash, written: WrittenState): CaseResult[] {
  const results: CaseResult[] = []
  for (const test of spec.tests ?? []) {
    const reason = written.refused.get(test.toggleName)
    if (reason !== undefined) {
      results.push({ file, kind: 'test', description: test.description, toggleName: test.toggleName, outcome: 'refused', detail: reason })
      continue
    }
    const answer = sdk.isEnabled(test.toggleName, test.context as never)
    results.push({
      file,
      kind: 'test',
      description: test.description,
      toggleName: test.toggleName,
      outcome: answer === test.expectedResult ? 'reproduced' : 'differs',
      ...(answer !== test.expectedResult && { detail: String(answer) }),
    })
  }
  for (const test of spec.variantTests ?? []) {
    const reason = written.refused.get(test.toggleName)
    if (reason !== undefined) {
      results.push({ file, kind: 'variantTest', description: test.description, toggleName: test.toggleName, outcome: 'refused', detail: reason })
      continue
    }
    const answer = sdk.getVariant(test.toggleName, test.context as never) as unknown as Record<string, unknown>
    const expected = { ...test.expectedResult, featureEnabled: test.expectedResult.feature_enabled }
    const same = JSON.stringify(sortKeys(answer)) === JSON.stringify(sortKeys(expected))
    results.push({
      file,
      kind: 'variantTest',
      description: test.description,
      toggleName: test.toggleName,
      outcome: same ? 'reproduced' : 'differs',
      ...(!same && { detail: JSON.stringify(answer) }),
    })
  }
  return results
}

function sortKeys (value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]))
}
