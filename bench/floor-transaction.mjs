// The floors' transaction: what the service's variants PATCH does in the database, issued with
// pg and nothing around it. Both floors run it: the HTTP floor (floor-server.mjs, a bare Fastify
// route) and the database floor of bench/lib/floor.ts. Mirror any change to the service's PATCH
// transaction here.

/**
 * The service's statement for a change's event (see insertEvents): the state version (notifying
 * the change feed), the event, and the outbox (a delivery for every enabled webhook that wants it), values bound as Kysely
 * binds them.
 */
const EVENT_WITH_OUTBOX = `WITH bumped AS (UPDATE state_version_shards SET changes = changes + 1 WHERE shard = pg_backend_pid() % 256 RETURNING shard, pg_notify('ffapi_changes', '')::text AS notified),
  inserted AS (INSERT INTO events (type, created_by, project, feature_name, environment, data, pre_data, change_request_id, change_request_author)
    VALUES ('feature-environment-variants-updated', 'floor', 'default', $1, 'development', $2, $3, $6, $7) RETURNING id, type, project, environment)
  INSERT INTO webhook_deliveries (webhook_id, event_id)
  SELECT webhooks.id AS webhook_id, inserted.id AS event_id FROM inserted
  INNER JOIN webhooks ON webhooks.enabled = $4 AND inserted.type = any(webhooks.events)
    AND (cardinality(webhooks.projects) = $5 OR inserted.project IS NULL OR inserted.project = any(webhooks.projects))
    AND (cardinality(webhooks.environments) = $5 OR inserted.environment IS NULL OR inserted.environment = any(webhooks.environments))`

/**
 * In one transaction on `client`: lock the feature and its development feature-environment (one
 * statement, as the service), parse the variants, set the first one's payload value, write them
 * back, insert the event with data and preData (moving the state version, with the outbox),
 * commit. Returns the variants written, as JSON text; rolls back and throws on failure.
 */
export async function floorWrite (client, feature, value) {
  try {
    await client.query('BEGIN')
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
    variants[0].payload.value = value
    const after = JSON.stringify(variants)
    await client.query(
      `UPDATE feature_environments SET variants = $1, revision = revision + 1
       WHERE feature_name = $2 AND environment_name = 'development'`,
      [after, feature]
    )
    await client.query(EVENT_WITH_OUTBOX, [feature, `{"variants":${after}}`, `{"variants":${before}}`, true, 0, null, null])
    await client.query('COMMIT')
    return after
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}
