/** What the parts ask of a server through its admin API (ours or Unleash's: the paths are the same). */
import type { Target } from './measure.js'
import { PAYLOAD } from './settings.js'

export async function call (target: Target, method: string, path: string, body?: unknown) {
  const { 'content-type': contentType, ...headers } = target.headers
  const res = await fetch(`${target.base}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': contentType ?? 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  })
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`)
}

export const variantsPath = (name: string) =>
  `/api/admin/projects/default/features/${name}/environments/development/variants`

/** A feature with `count` variants whose payloads are PAYLOAD long. */
export async function createFeature (target: Target, name: string, count: number) {
  await call(target, 'POST', '/api/admin/projects/default/features', { name })
  const variants = Array.from({ length: count }, (_, i) => ({
    name: `v${String(i).padStart(4, '0')}`,
    weight: 0,
    weightType: 'variable',
    stickiness: 'default',
    payload: { type: 'string', value: PAYLOAD },
  }))
  await call(target, 'PUT', variantsPath(name), variants)
}

/** Archives features a scenario switched on, so that the next scenario's SDKs do not see them. */
export async function archive (target: Target, names: string[]) {
  for (const name of names) await call(target, 'DELETE', `/api/admin/projects/default/features/${name}`)
}

export const patchOne = (i: number) => JSON.stringify([{ op: 'replace', path: '/0/payload/value', value: `v${i}` }])

/** Runs `work` over `items`, `width` at a time. */
export async function inParallel<T> (items: T[], width: number, work: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++] as T)
  }))
}
