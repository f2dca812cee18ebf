import { createFeature, patchOne, variantsPath } from '../lib/api.js'
import { besideFloor } from '../lib/floor.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { CONNECTIONS, FEATURES } from '../lib/settings.js'

/** The scenarios over 50 features at BENCH_CONNECTIONS: writes spread out, one hot feature, completions. */
export async function featureScenarios (server: Target, databaseUrl: string, pid: number): Promise<Row[]> {
  const names = Array.from({ length: FEATURES }, (_, i) => `bench-${i}`)
  for (const name of names) await createFeature(server, name, 2)
  const rows: Row[] = []
  rows.push(
    ...(await besideFloor(databaseUrl, names, CONNECTIONS, () =>
      load(server, `PATCH variants, ${FEATURES} features`, CONNECTIONS, (i) => ({
        method: 'PATCH',
        path: variantsPath(names[i % FEATURES] as string),
        body: patchOne(i),
      }), pid)
    ))
  )
  rows.push(
    await load(server, 'PATCH variants, one hot feature', CONNECTIONS, (i) => ({
      method: 'PATCH',
      path: variantsPath(names[0] as string),
      body: patchOne(i),
    }), pid)
  )
  rows.push(
    await load(server, `POST lifecycle/complete, ${FEATURES} features`, CONNECTIONS, (i) => ({
      method: 'POST',
      path: `/api/admin/projects/default/features/${names[i % FEATURES]}/lifecycle/complete`,
      body: JSON.stringify({ status: i % 2 ? 'kept' : 'discarded', statusValue: `v${i}` }),
    }), pid)
  )
  return rows
}
