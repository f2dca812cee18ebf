import { randomBytes } from 'node:crypto'
import { call } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { once, type OnceRow, type Target } from '../lib/measure.js'

export const IMPORT_FEATURES = Number(process.env.BENCH_IMPORT_FEATURES ?? 1000)
const IMPORT_CHUNK = 50

/** An export of `count` features, each with a gradual rollout, a constraint, two strategy variants and environment variants. */
function importData (prefix: string, count: number) {
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(5, '0')}`)
  return {
    features: names.map((name) => ({ name, type: 'release', description: `imported ${name}` })),
    featureStrategies: names.map((name, i) => ({
      name: 'flexibleRollout',
      featureName: name,
      parameters: { rollout: String(i % 101), stickiness: 'default', groupId: name },
      constraints: [{ contextName: 'appName', operator: 'IN', values: ['web', 'ios', 'android'] }],
      variants: [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default' }, { name: 'b', weight: 500, weightType: 'variable', stickiness: 'default' }],
    })),
    featureEnvironments: names.map((name, i) => ({ name, featureName: name, environment: 'development', enabled: i % 2 === 0, variants: [{ name: 'on', weight: 1000, weightType: 'variable', stickiness: 'default' }] })),
    contextFields: [],
    featureTags: [],
    segments: [],
    tagTypes: [],
  }
}

/**
 * Import of IMPORT_FEATURES features with strategies into an empty project (one transaction),
 * the same import again (nothing to change), and an export of them; Unleash's beside when
 * UNLEASH_URL (and UNLEASH_PAT for its import) are set.
 */
export async function importScenarios (target: Target, pid: number | undefined, label = '', importHeaders?: Record<string, string>): Promise<OnceRow[]> {
  // Into the default project (Unleash's open-source edition cannot create projects), with names of this run.
  const project = 'default'
  const data = importData(`bench-${randomBytes(3).toString('hex')}`, IMPORT_FEATURES)
  const importer = { ...target, headers: importHeaders ?? target.headers }
  const rows: OnceRow[] = []
  // One request, as a user would send it; a server that refuses its size (Unleash's 100 kB body
  // limit) gets the same features in requests of IMPORT_CHUNK, one after another.
  let chunk = IMPORT_FEATURES
  const importAll = async () => {
    for (let start = 0; start < IMPORT_FEATURES; start += chunk) {
      const part = importData('', 0)
      const names = new Set(data.features.slice(start, start + chunk).map((f) => f.name))
      for (const key of ['features', 'featureStrategies', 'featureEnvironments'] as const) {
        (part[key] as unknown[]) = (data[key] as { name?: string; featureName?: string }[]).filter((x) => names.has(x.featureName ?? x.name ?? ''))
      }
      await call(importer, 'POST', '/api/admin/features-batch/import', { project, environment: 'development', data: part })
    }
  }
  try {
    await call(importer, 'POST', '/api/admin/features-batch/validate', { project, environment: 'development', data })
  } catch (error) {
    if (!/: 413 /.test((error as Error).message)) throw error
    chunk = IMPORT_CHUNK
  }
  const how = chunk === IMPORT_FEATURES ? 'one request' : `${Math.ceil(IMPORT_FEATURES / chunk)} requests of ${chunk} (one is refused: 413)`
  rows.push(await once(`${label}import ${IMPORT_FEATURES} features with strategies (new), ${how}`, pid, importAll))
  rows.push(await once(`${label}import the same again (nothing changes)`, pid, importAll))
  const features = data.features.map((f) => f.name)
  rows.push(await once(`${label}export ${IMPORT_FEATURES} features with strategies`, pid, () => call(target, 'POST', '/api/admin/features-batch/export', { environment: 'development', features })))
  return rows
}

/** Ours, then Unleash's beside it when it runs with a personal access token. */
export async function importPart ({ target, pid, unleash }: Bench): Promise<OnceRow[]> {
  const imports = await importScenarios(target, pid)
  if (imports.length > 0 && unleash?.pat) {
    try {
      imports.push(...(await importScenarios(unleash, unleash.pid, 'Unleash: ', { ...unleash.headers, authorization: unleash.pat })))
    } catch (error) {
      console.log(`Unleash, import: ${(error as Error).message.slice(0, 1000)}`)
    }
  }
  return imports
}
