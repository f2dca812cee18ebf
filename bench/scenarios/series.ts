import { randomBytes } from 'node:crypto'
import { createFeature, patchOne, variantsPath } from '../lib/api.js'
import { besideFloor } from '../lib/floor.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { SERIES_CONNECTIONS, SIZES } from '../lib/settings.js'

/** One PATCH with one operation on documents of each size, one feature per size, 4 connections. */
export async function sizeSeries (server: Target, databaseUrl: string, pid: number, unleash?: Target): Promise<Row[]> {
  const rows: Row[] = []
  for (const size of SIZES) {
    const name = `series-${size}`
    await createFeature(server, name, size)
    rows.push(
      ...(await besideFloor(databaseUrl, [name], SERIES_CONNECTIONS, () =>
        load(server, `PATCH one op, ${size} variants, ${SERIES_CONNECTIONS} conn`, SERIES_CONNECTIONS, (i) => ({
          method: 'PATCH',
          path: variantsPath(name),
          body: patchOne(i),
        }), pid)
      ))
    )
    if (unleash) {
      try {
        const unleashName = `${name}-${randomBytes(3).toString('hex')}`
        await createFeature(unleash, unleashName, size)
        rows.push(
          await load(unleash, `Unleash: PATCH one op, ${size} variants, ${SERIES_CONNECTIONS} conn`, SERIES_CONNECTIONS, (i) => ({
            method: 'PATCH',
            path: variantsPath(unleashName),
            body: patchOne(i),
          }), unleash.pid)
        )
      } catch (error) {
        console.log(`Unleash, ${size} variants: ${(error as Error).message.slice(0, 200)}`)
      }
    }
  }
  return rows
}
