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
import { auth, buildTestApp, json, type TestApp, uniqueName } from './app.js'

const require = createRequire(import.meta.url)
const SPEC_DIR = join(dirname(require.resolve('@unleash/client-specification/package.json')), 'specifications')

export interface SpecStrategy {
  name: string
  parameters?: Record<string, string>
  constraints?: unknown[]
  segments?: number[]
  variants?: unknown[]
}

export interface SpecSegment {
  id: number
  name?: string | null
  constraints: unknown[]
}

export interface SpecFeature {
  name: string
  enabled: boolean
  strategies?: SpecStrategy[]
  variants?: { name: string; weight: number; stickiness?: string; payload?: unknown; overrides?: unknown }[]
  impressionData?: boolean
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[]
  project?: string
  type?: string
}

export interface SpecFile {
  name: string
  state: { version?: number; features?: SpecFeature[]; segments?: SpecSegment[]; events?: SpecEvent[] }
  tests?: { description: string; context: Record<string, unknown>; toggleName: string; expectedResult: boolean }[]
  variantTests?: { description: string; context: Record<string, unknown>; toggleName: string; expectedResult: Record<string, unknown> }[]
}

/** An event of the delta format (files 19 and 20). */
export type SpecEvent =
  | { type: 'hydration'; features: SpecFeature[]; segments?: SpecSegment[] }
  | { type: 'feature-updated'; feature: SpecFeature }
  | { type: 'feature-removed'; featureName: string }
  | { type: 'segment-updated'; segment: SpecSegment }
  | { type: 'segment-removed'; segmentId: number }

/** A state in the delta format, as the state its events leave. */
export function finalState (state: SpecFile['state']): { features: SpecFeature[]; segments: SpecSegment[] } {
  if (state.events === undefined) return { features: state.features ?? [], segments: state.segments ?? [] }
  const features = new Map<string, SpecFeature>()
  const segments = new Map<number, SpecSegment>()
  for (const event of state.events) {
    if (event.type === 'hydration') {
      features.clear()
      segments.clear()
      for (const f of event.features) features.set(f.name, f)
      for (const g of event.segments ?? []) segments.set(g.id, g)
    } else if (event.type === 'feature-updated') {
      features.set(event.feature.name, event.feature)
    } else if (event.type === 'feature-removed') {
      features.delete(event.featureName)
    } else if (event.type === 'segment-updated') {
      segments.set(event.segment.id, event.segment)
    } else {
      segments.delete(event.segmentId)
    }
  }
  return { features: [...features.values()], segments: [...segments.values()] }
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
 * Writes a specification state (its final state, for the delta format) through the admin API,
 * in the `development` environment of `project`: segments (their ids mapped to the ones the
 * service gives), features, their strategies, variants and switches, then dependencies. A
 * feature any part of which the service refuses (with a 400) is recorded as refused with the
 * refusal's message; so is a feature that depends, directly or not, on a refused one (its state
 * could not be written as the specification has it).
 */
export async function writeState (app: App, state: SpecFile['state'], project = 'default'): Promise<WrittenState> {
  const { features, segments } = finalState(state)
  const refused = new Map<string, string>()
  const defined = new Set((json(await app.inject({ method: 'GET', url: '/api/admin/strategies', headers: auth() })).strategies as { name: string }[]).map((s) => s.name))
  const segmentIds = new Map<number, number>()
  for (const segment of segments) {
    const res = await call(app, 'POST', '/api/admin/segments', { name: segment.name ?? `segment-${segment.id}`, constraints: segment.constraints })
    if (res.status !== 201) throw new Error(`segment ${segment.id}: ${res.status} ${JSON.stringify(res.body)}`)
    segmentIds.set(segment.id, (res.body as { id: number }).id)
  }
  // An id the state does not define stays missing, whatever ids the service gave.
  const missingId = (id: number) => (new Set(segmentIds.values()).has(id) ? 2_000_000_000 + id : id)
  const base = `/api/admin/projects/${project}/features`
  for (const feature of features) {
    const refuse = (what: string, res: { status: number; body: unknown }) => {
      if (res.status !== 400) throw new Error(`${feature.name}: ${what} answered ${res.status} ${JSON.stringify(res.body)}`)
      refused.set(feature.name, (res.body as { message: string }).message)
    }
    const created = await call(app, 'POST', base, { name: feature.name, ...(feature.impressionData !== undefined && { impressionData: feature.impressionData }) })
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
      const body = { ...strategy, ...(strategy.segments && { segments: strategy.segments.map((id) => segmentIds.get(id) ?? missingId(id)) }) }
      const res = await call(app, 'POST', `${url}/strategies`, body)
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
  // Dependencies on parents that have none of their own first, so that only what is invalid (a
  // chain, a cycle) is refused, whatever order the state lists features in.
  const hasParents = new Set(features.filter((f) => (f.dependencies ?? []).length > 0).map((f) => f.name))
  const chained = (f: SpecFeature) => (f.dependencies ?? []).some((d) => hasParents.has(d.feature))
  for (const feature of [...features.filter((f) => !chained(f)), ...features.filter(chained)]) {
    if (refused.has(feature.name)) continue
    for (const dependency of feature.dependencies ?? []) {
      const res = await call(app, 'POST', `${base}/${encodeURIComponent(feature.name)}/dependencies`, dependency)
      if (res.status === 200) continue
      if (res.status !== 400) throw new Error(`${feature.name}: its dependency answered ${res.status} ${JSON.stringify(res.body)}`)
      refused.set(feature.name, (res.body as { message: string }).message)
      break
    }
  }
  // What depends on a refused feature could not be written as the state has it either.
  for (let changed = true; changed;) {
    changed = false
    for (const feature of features) {
      if (refused.has(feature.name)) continue
      const parent = (feature.dependencies ?? []).find((d) => refused.has(d.feature))
      if (parent) {
        refused.set(feature.name, `depends on ${parent.feature}, refused: ${refused.get(parent.feature)}`)
        changed = true
      }
    }
  }
  return { refused }
}

/** A client token of the `development` environment. */
export async function clientSecret (app: App): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/admin/api-tokens', headers: auth(), payload: { tokenName: uniqueName('spec'), type: 'client', environment: 'development' } })
  return json(res).secret as string
}

/** How the SDK fetches: polling the full state (its default), streaming, or polling deltas. */
export type SdkMode = { type: 'polling'; format: 'full' | 'delta' } | { type: 'streaming' }

/** The official Node SDK on `base` (a listening server), synchronised once. */
export async function startSdk (base: string, secret: string, experimentalMode: SdkMode = { type: 'polling', format: 'full' }): Promise<Unleash> {
  const sdk = new Unleash({
    experimentalMode,
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

/**
 * A specification file's state written through the admin API of a test app of its own,
 * listening on a port, and the official Node SDK synchronised from it; `use` runs with them,
 * then the SDK and the app are closed.
 */
export async function withSpecState<T> (
  file: string,
  use: (s: { t: TestApp; spec: SpecFile; written: WrittenState; sdk: Unleash; base: string; secret: string }) => Promise<T>
): Promise<T> {
  const t = await buildTestApp({ CLIENT_STATE_CACHE_MS: '0' })
  try {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    const base = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`
    const spec = loadSpec(file)
    const written = await writeState(t.app, spec.state)
    const secret = await clientSecret(t.app)
    const sdk = await startSdk(base, secret)
    try {
      return await use({ t, spec, written, sdk, base, secret })
    } finally {
      sdk.destroy()
    }
  } finally {
    await t.close()
  }
}
