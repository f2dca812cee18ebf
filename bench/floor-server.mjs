// The HTTP floor of the CPU benchmark: a bare Fastify route (no schemas, no auth, no logging,
// no hooks) doing the same transaction as the service's variants PATCH with pg, so that the
// difference in server CPU time per request is what the service adds around it.
//
//   DATABASE_URL=… PORT=… node bench/floor-server.mjs
import Fastify from 'fastify'
import pg from 'pg'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 20 })
const app = Fastify({ logger: false })

app.patch('/floor/:feature', async (request) => {
  const { feature } = request.params
  const client = await pool.connect()
  try {
    await client.query('BEGIN')
    // The service's lock: the feature, then its feature-environment, in one statement.
    const { rows } = await client.query(
      `SELECT f.archived_at, fe.variants::text AS variants, fe.revision, fe.enabled
       FROM features f
       JOIN feature_environments fe ON fe.feature_name = f.name
       JOIN project_environments pe ON pe.project_id = f.project_id AND pe.environment_name = fe.environment_name
       WHERE f.name = $1 AND f.project_id = 'default' AND fe.environment_name = 'development'
       FOR NO KEY UPDATE OF f, fe`,
      [feature]
    )
    const before = rows[0].variants
    const variants = JSON.parse(before)
    const [operation] = request.body
    variants[0].payload.value = operation.value
    const after = JSON.stringify(variants)
    await client.query(
      `UPDATE feature_environments SET variants = $1, revision = revision + 1
       WHERE feature_name = $2 AND environment_name = 'development'`,
      [after, feature]
    )
    // The event, with the state version's counter and the webhook outbox, in one statement (as
    // the service does, see insertEvents).
    await client.query(
      `WITH bumped AS (UPDATE state_version_shards SET changes = changes + 1 WHERE shard = pg_backend_pid() % 256 RETURNING shard),
         inserted AS (INSERT INTO events (type, created_by, project, feature_name, environment, data, pre_data)
           VALUES ('feature-environment-variants-updated', 'floor', 'default', $1, 'development', $2, $3) RETURNING id, type, project, environment)
       INSERT INTO webhook_deliveries (webhook_id, event_id)
       SELECT webhooks.id AS webhook_id, inserted.id AS event_id FROM inserted
       INNER JOIN webhooks ON webhooks.enabled = $4 AND inserted.type = any(webhooks.events)
         AND (cardinality(webhooks.projects) = $5 OR inserted.project IS NULL OR inserted.project = any(webhooks.projects))
         AND (cardinality(webhooks.environments) = $5 OR inserted.environment IS NULL OR inserted.environment = any(webhooks.environments))`,
      [feature, `{"variants":${after}}`, `{"variants":${before}}`, true, 0]
    )
    await client.query('COMMIT')
    return `{"version":1,"variants":${after}}`
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
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
