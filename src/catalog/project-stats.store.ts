/**
 * What the project screens of Unleash's clients read about a project: counts of its flags,
 * members, events and resources, computed when asked (Unleash keeps some in tables a job
 * fills; here they are always current).
 */
import { type ExpressionBuilder, sql } from 'kysely'
import type { DB, Queryable } from '../db/types.js'

type Projects = ExpressionBuilder<DB & { p: DB['projects'] }, 'p'>

const DAY = sql`interval '1 day'`

/** Flags of the project (`p`) not archived. */
const activeFlags = (eb: Projects) =>
  eb.selectFrom('features as f').select(eb.fn.countAll<string>().as('n')).whereRef('f.project_id', '=', 'p.id').where('f.archived_at', 'is', null)

/** Flags of the project (`p`), not archived, older than their type's expected lifetime. */
const potentiallyStale = (eb: Projects) =>
  eb
    .selectFrom('features as f')
    .innerJoin('feature_types as ft', 'ft.id', 'f.type')
    .select(eb.fn.countAll<string>().as('n'))
    .whereRef('f.project_id', '=', 'p.id')
    .where('f.archived_at', 'is', null)
    .where(sql<boolean>`f.created_at <= now() - ft.lifetime_days * ${DAY}`)

/** People with a role in the project (`p`): their own, or through a group. */
const members = (eb: Projects) =>
  eb
    .selectFrom(
      eb
        .selectFrom('project_roles as r')
        .select('r.user_id')
        .whereRef('r.project_id', '=', 'p.id')
        .union(eb.selectFrom('group_project_roles as g').innerJoin('group_users as gu', 'gu.group_id', 'g.group_id').select('gu.user_id').whereRef('g.project_id', '=', 'p.id'))
        .as('m')
    )
    .select(eb.fn.countAll<string>().as('n'))

/** When an event about one of the project's (`p`) flags was last recorded. */
const lastUpdated = (eb: Projects) =>
  eb.selectFrom('events as e').select('e.created_at').whereRef('e.project', '=', 'p.id').where('e.feature_name', 'is not', null).orderBy('e.id', 'desc').limit(1)

/** When an SDK last reported evaluating one of the project's (`p`) flags. */
const lastUsage = (eb: Projects) =>
  eb
    .selectFrom('usage_evaluations as u')
    .innerJoin('features as f', 'f.name', 'u.feature_name')
    .select((s) => s.fn.max('u.last_seen_at').as('at'))
    .whereRef('f.project_id', '=', 'p.id')

/**
 * Whether an SDK reported usage of the project (`p`): it evaluated one of its flags, or an
 * application registered with a token that names the project.
 */
const sdkConnected = (eb: Projects) =>
  eb.or([
    eb.exists(eb.selectFrom('usage_evaluations as u').innerJoin('features as f', 'f.name', 'u.feature_name').select('u.feature_name').whereRef('f.project_id', '=', 'p.id')),
    eb.exists(eb.selectFrom('usage_applications as a').select('a.id').where(sql<boolean>`a.projects::jsonb @> jsonb_build_array(p.id)`)),
  ])

/** Whether one of the project's (`p`) flags was ever switched on (its event). */
const everEnabled = (eb: Projects) =>
  eb.exists(eb.selectFrom('events as e').select('e.id').whereRef('e.project', '=', 'p.id').where('e.type', '=', 'feature-environment-enabled'))

/** The project's (`p`) first flag, not archived. */
const firstFlag = (eb: Projects) =>
  eb.selectFrom('features as f').select('f.name').whereRef('f.project_id', '=', 'p.id').where('f.archived_at', 'is', null).orderBy('f.created_at').orderBy('f.name').limit(1)

/** Each project (of `ids`, all when undefined), by name, with its counts. */
export async function projectSummaries (db: Queryable, ids?: readonly string[]) {
  if (ids?.length === 0) return []
  let query = db
    .selectFrom('projects as p')
    .select(['p.id', 'p.name', 'p.description', 'p.created_at'])
    .select((eb) => [
      activeFlags(eb).as('flags'),
      potentiallyStale(eb).as('potentially_stale'),
      members(eb).as('members'),
      lastUpdated(eb).as('last_updated'),
      lastUsage(eb).as('last_usage'),
      sdkConnected(eb).as('sdk_connected'),
      everEnabled(eb).as('ever_enabled'),
      firstFlag(eb).as('first_flag'),
    ])
    .orderBy('p.name')
    .orderBy('p.id')
  if (ids !== undefined) query = query.where('p.id', 'in', ids)
  const rows = await query.execute()
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    description: r.description,
    createdAt: r.created_at,
    flags: Number(r.flags ?? 0),
    potentiallyStale: Number(r.potentially_stale ?? 0),
    members: Number(r.members ?? 0),
    lastUpdatedAt: r.last_updated === null ? null : new Date(r.last_updated),
    lastReportedFlagUsage: r.last_usage === null ? null : new Date(r.last_usage as Date),
    onboarding: { sdkConnected: Boolean(r.sdk_connected), everEnabled: Boolean(r.ever_enabled), firstFlag: r.first_flag },
  }))
}
export type ProjectSummary = Awaited<ReturnType<typeof projectSummaries>>[number]

/** The project's flags (not archived) by type, in type order. */
export async function flagTypeCounts (db: Queryable, project: string) {
  const rows = await db
    .selectFrom('features')
    .select(['type', (eb) => eb.fn.countAll<string>().as('n')])
    .where('project_id', '=', project)
    .where('archived_at', 'is', null)
    .groupBy('type')
    .orderBy('type')
    .execute()
  return rows.map((r) => ({ type: r.type, count: Number(r.n) }))
}

/** The environments enabled in the project, in list order, with its default strategy there (JSON text, or null). */
export async function enabledEnvironments (db: Queryable, project: string) {
  return db
    .selectFrom('project_environments as pe')
    .innerJoin('environments as e', 'e.name', 'pe.environment_name')
    .select(['pe.environment_name', 'pe.default_strategy'])
    .where('pe.project_id', '=', project)
    .orderBy('e.sort_order')
    .orderBy('e.created_at')
    .orderBy('e.name')
    .execute()
}

/** Counts over the last 30 days and the 30 before them, as Unleash's project stats have them. */
export async function windowCounts (db: Queryable, project: string) {
  const within = (column: string, from: number, to: number) =>
    sql<string>`count(*) FILTER (WHERE ${sql.ref(column)} > now() - ${from} * ${DAY} AND ${sql.ref(column)} <= now() - ${to} * ${DAY})`
  const flags = await db
    .selectFrom('features')
    .select([within('created_at', 30, 0).as('created_now'), within('created_at', 60, 30).as('created_before'), within('archived_at', 30, 0).as('archived_now'), within('archived_at', 60, 30).as('archived_before')])
    .where('project_id', '=', project)
    .executeTakeFirstOrThrow()
  const events = await db
    .selectFrom('events')
    .select([within('created_at', 30, 0).as('now'), within('created_at', 60, 30).as('before')])
    .where('project', '=', project)
    .where('created_at', '>', sql<Date>`now() - 60 * ${DAY}`)
    .executeTakeFirstOrThrow()
  const added = await db
    .selectFrom(
      db
        .selectFrom('project_roles')
        .select('user_id')
        .where('project_id', '=', project)
        .where('created_at', '>', sql<Date>`now() - 30 * ${DAY}`)
        .union(
          db
            .selectFrom('group_project_roles as g')
            .innerJoin('group_users as gu', 'gu.group_id', 'g.group_id')
            .select('gu.user_id')
            .where('g.project_id', '=', project)
            .where('g.created_at', '>', sql<Date>`now() - 30 * ${DAY}`)
        )
        .as('m')
    )
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .executeTakeFirstOrThrow()
  return {
    createdCurrentWindow: Number(flags.created_now),
    createdPastWindow: Number(flags.created_before),
    archivedCurrentWindow: Number(flags.archived_now),
    archivedPastWindow: Number(flags.archived_before),
    projectActivityCurrentWindow: Number(events.now),
    projectActivityPastWindow: Number(events.before),
    projectMembersAddedCurrentWindow: Number(added.n),
  }
}

/**
 * For each release flag of the project switched on in a production environment after it was
 * created: when it was created and first switched on there (Unleash's time to production).
 */
export async function timesToProduction (db: Queryable, project: string) {
  return db
    .selectFrom('events as e')
    .innerJoin('features as f', 'f.name', 'e.feature_name')
    .innerJoin('environments as env', 'env.name', 'e.environment')
    .select(['f.created_at as created', (eb) => eb.fn.min('e.created_at').as('enabled')])
    .where('e.project', '=', project)
    .where('e.type', '=', 'feature-environment-enabled')
    .where('env.type', '=', 'production')
    .where('f.project_id', '=', project)
    .where('f.type', '=', 'release')
    .whereRef('e.created_at', '>', 'f.created_at')
    .groupBy(['e.feature_name', 'f.created_at'])
    .execute()
}

/** Events of the project per day (UTC) of the last year, oldest first. */
export async function activityByDate (db: Queryable, project: string) {
  const day = sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`
  const rows = await db
    .selectFrom('events')
    .select([day.as('date'), (eb) => eb.fn.countAll<string>().as('n')])
    .where('project', '=', project)
    .where('created_at', '>=', sql<Date>`now() - interval '1 year'`)
    .groupBy(day)
    .orderBy(day)
    .execute()
  return rows.map((r) => ({ date: r.date, count: Number(r.n) }))
}

/** Tokens that name the project, its segments, and its archived flags (all, and archived in the last 30 days). */
export async function projectResources (db: Queryable, project: string) {
  const row = await db
    .selectFrom('projects as p')
    .select((eb) => [
      eb.selectFrom('api_tokens as t').select(eb.fn.countAll<string>().as('n')).where(sql<boolean>`t.projects @> jsonb_build_array(p.id)`).as('tokens'),
      eb.selectFrom('segments as s').select(eb.fn.countAll<string>().as('n')).whereRef('s.project_id', '=', 'p.id').as('segments'),
      eb.selectFrom('features as f').select(eb.fn.countAll<string>().as('n')).whereRef('f.project_id', '=', 'p.id').where('f.archived_at', 'is not', null).as('archived'),
      eb
        .selectFrom('features as f')
        .select(eb.fn.countAll<string>().as('n'))
        .whereRef('f.project_id', '=', 'p.id')
        .where('f.archived_at', '>', sql<Date>`now() - 30 * ${DAY}`)
        .as('archived_recently'),
    ])
    .where('p.id', '=', project)
    .executeTakeFirstOrThrow()
  return {
    apiTokens: Number(row.tokens ?? 0),
    segments: Number(row.segments ?? 0),
    archived: Number(row.archived ?? 0),
    archivedRecently: Number(row.archived_recently ?? 0),
  }
}

/**
 * Who created the project's flags (not archived): the person of each flag's latest
 * feature-created event, when a person made it and still exists; by id.
 */
export async function flagCreators (db: Queryable, project: string) {
  return db
    .selectFrom('users as u')
    .select(['u.id', 'u.name', 'u.username', 'u.email'])
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('features as f')
          .innerJoinLateral(
            (l) =>
              l
                .selectFrom('events as e')
                .select('e.created_by_user_id')
                .whereRef('e.feature_name', '=', 'f.name')
                .where('e.type', '=', 'feature-created')
                .orderBy('e.id', 'desc')
                .limit(1)
                .as('created'),
            (join) => join.onTrue()
          )
          .select('f.name')
          .where('f.project_id', '=', project)
          .where('f.archived_at', 'is', null)
          .whereRef('created.created_by_user_id', '=', 'u.id')
      )
    )
    .orderBy('u.id')
    .execute()
}
