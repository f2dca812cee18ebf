import { randomBytes } from 'node:crypto'
import { archive, call } from '../lib/api.js'
import type { Bench } from '../lib/bench.js'
import { load, type Row, type Target } from '../lib/measure.js'
import { CLIENT_CONNECTIONS } from '../lib/settings.js'

/**
 * The client API as SDKs poll it: 1000 features, a client token, 50 connections; polls that
 * send the ETag they hold (304) and polls that do not (the whole answer).
 */
export async function clientScenarios (server: Target, pid?: number, label = ''): Promise<Row[]> {
  const run = randomBytes(3).toString('hex')
  const names = Array.from({ length: 1000 }, (_, i) => `client-${run}-${String(i).padStart(4, '0')}`)
  for (const name of names) {
    await call(server, 'POST', '/api/admin/projects/default/features', { name })
    await call(server, 'POST', `/api/admin/projects/default/features/${name}/environments/development/on`)
  }
  const created = await fetch(`${server.base}/api/admin/api-tokens`, {
    method: 'POST',
    headers: server.headers,
    body: JSON.stringify({ tokenName: `bench-client-${randomBytes(3).toString('hex')}`, type: 'client', environment: 'development' }),
  })
  const secret = ((await created.json()) as { secret: string }).secret
  const first = await fetch(`${server.base}/api/client/features`, { headers: { authorization: secret } })
  const etag = first.headers.get('etag') ?? ''
  const size = (await first.text()).length
  const poll = { path: '/api/client/features', method: 'GET' as const }
  const rows = [
    await load({ base: server.base, headers: { authorization: secret, 'if-none-match': etag } }, `${label}GET /api/client/features with If-None-Match (304), ${names.length} features, ${CLIENT_CONNECTIONS} conn`, CLIENT_CONNECTIONS, () => poll, pid, [304]),
    await load({ base: server.base, headers: { authorization: secret } }, `${label}GET /api/client/features (${Math.round(size / 1024)} kB), ${names.length} features, ${CLIENT_CONNECTIONS} conn`, CLIENT_CONNECTIONS, () => poll, pid),
  ]
  await archive(server, names)
  return rows
}

/** Ours, then Unleash's beside it when it runs. */
export async function clientPart ({ target, pid, unleash }: Bench): Promise<Row[]> {
  const client = await clientScenarios(target, pid)
  if (client.length > 0 && unleash) {
    try {
      client.push(...(await clientScenarios(unleash, unleash.pid, 'Unleash: ')))
    } catch (error) {
      console.log(`Unleash, client API: ${(error as Error).message.slice(0, 200)}`)
    }
  }
  return client
}
