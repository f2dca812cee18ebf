// The HTTP floor of the CPU benchmark: a bare Fastify route (no schemas, no auth, no logging,
// no hooks) doing the same transaction as the service's variants PATCH with pg (floorWrite, in
// floor-transaction.mjs), so that the difference in server CPU time per request is what the
// service adds around it.
//
//   DATABASE_URL=… PORT=… node bench/floor-server.mjs
import Fastify from 'fastify'
import pg from 'pg'
import { floorWrite } from './floor-transaction.mjs'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const app = Fastify({ logger: false })

app.patch('/floor/:feature', async (request) => {
  const client = await pool.connect()
  try {
    const after = await floorWrite(client, request.params.feature, request.body[0].value)
    return `{"version":1,"variants":${after}}`
  } finally {
    client.release()
  }
})

await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.once('SIGTERM', async () => {
  await app.close()
  await pool.end()
  process.exit(0)
})
