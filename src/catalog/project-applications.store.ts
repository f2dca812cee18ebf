/**
 * The applications that use a project's flags, read from the SDK usage tables (usage/ writes
 * them): an application counts when it reported evaluating one of the project's flags (within
 * the usage retention), in the environments it reported them from, with its instances there.
 * A query of its own, so that the project screens do not wait on the usage reads of the
 * insight work.
 */
import { sql } from 'kysely'
import type { Queryable } from '../db/types.js'

export interface ApplicationsPage {
  /** Words, any of which an application's name, environment, instance id or SDK version contains (case-insensitive). */
  terms: readonly string[]
  offset: number
  limit: number
  descending: boolean
}

interface Row {
  total: string
  app_name: string | null
  environment: string | null
  instance_id: string | null
  sdk_version: string | null
}

/** One page of the applications (by name) with their rows (environment, instance, SDK), and how many match in all. */
export async function applicationRowsOfProject (db: Queryable, project: string, page: ApplicationsPage) {
  const matches = page.terms.length === 0
    ? sql`true`
    : sql.join(
      ['apps.app_name', 'apps.environment', 'i.instance_id', 'i.sdk_version'].flatMap((column) =>
        page.terms.map((term) => sql`strpos(lower(${sql.ref(column)}), lower(${term})) > 0`)
      ),
      sql` OR `
    )
  const order = page.descending ? sql`DESC` : sql`ASC`
  // One row at least (the total), with the page's rows joined to it.
  const { rows } = await sql<Row>`
    WITH apps AS (
      SELECT DISTINCT a.app_name, a.environment
      FROM usage_applications a
      WHERE EXISTS (
        SELECT 1 FROM usage_counts c JOIN features f ON f.name = c.feature_name
        WHERE c.application_id = a.id AND f.project_id = ${project}
      )
    ), matching AS (
      SELECT DISTINCT apps.app_name, apps.environment, i.instance_id, i.sdk_version
      FROM apps
      LEFT JOIN usage_applications same ON same.app_name = apps.app_name AND same.environment = apps.environment
      LEFT JOIN usage_instances i ON i.application_id = same.id
      WHERE ${matches}
    ), ranked AS (
      SELECT matching.*, dense_rank() OVER (ORDER BY app_name ${order}) AS rank FROM matching
    )
    SELECT counted.total, ranked.app_name, ranked.environment, ranked.instance_id, ranked.sdk_version
    FROM (SELECT count(DISTINCT app_name) AS total FROM matching) counted
    LEFT JOIN ranked ON ranked.rank > ${page.offset} AND ranked.rank <= ${page.offset + page.limit}
    ORDER BY ranked.rank, ranked.environment, ranked.instance_id
  `.execute(db)
  return {
    total: Number(rows[0]?.total ?? 0),
    rows: rows.flatMap((r) => (r.app_name === null ? [] : [{ app: r.app_name, environment: r.environment!, instance: r.instance_id, sdkVersion: r.sdk_version }])),
  }
}
