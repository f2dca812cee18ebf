import { sql } from 'kysely'
import type { Queryable } from '../db/types.js'

/** The ids of the projects where the person has a role (their own or a group's), and of their favourite projects. */
export async function personalProjectIds (db: Queryable, userId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('project_roles')
    .select('project_id')
    .where('user_id', '=', userId)
    .union(
      db
        .selectFrom('group_project_roles as g')
        .innerJoin('group_users as u', 'u.group_id', 'g.group_id')
        .select('g.project_id')
        .where('u.user_id', '=', userId)
    )
    .union(db.selectFrom('favorite_projects').select('project_id').where('user_id', '=', userId))
    .execute()
  return rows.map((r) => r.project_id)
}

/** Counts of a project's features that are not archived: all, marked stale, and potentially stale (older than their type's lifetime, not marked). */
export interface FlagCounts {
  total: number
  stale: number
  potentiallyStale: number
}

/** Those counts for each of these projects, by project id, with the project's name and member count. */
export async function projectSummaries (db: Queryable, ids: readonly string[]) {
  if (ids.length === 0) return []
  const rows = await db
    .selectFrom('projects as p')
    .select((eb) => [
      'p.id',
      'p.name',
      eb.selectFrom('features as f').select((e) => e.fn.countAll<string>().as('n')).whereRef('f.project_id', '=', 'p.id').where('f.archived_at', 'is', null).as('total'),
      eb.selectFrom('features as f').select((e) => e.fn.countAll<string>().as('n')).whereRef('f.project_id', '=', 'p.id').where('f.archived_at', 'is', null).where('f.stale', '=', true).as('stale'),
      eb
        .selectFrom('features as f')
        .innerJoin('feature_types as t', 't.id', 'f.type')
        .select((e) => e.fn.countAll<string>().as('n'))
        .whereRef('f.project_id', '=', 'p.id')
        .where('f.archived_at', 'is', null)
        .where('f.stale', '=', false)
        .where(sql<boolean>`f.created_at < now() - t.lifetime_days * interval '1 day'`)
        .as('potentially_stale'),
      eb
        .selectFrom(
          eb
            .selectFrom('project_roles as r')
            .select('r.user_id')
            .whereRef('r.project_id', '=', 'p.id')
            .union(eb.selectFrom('group_project_roles as g').innerJoin('group_users as u', 'u.group_id', 'g.group_id').select('u.user_id').whereRef('g.project_id', '=', 'p.id'))
            .as('m')
        )
        .select((e) => e.fn.countAll<string>().as('n'))
        .as('members'),
    ])
    .where('p.id', 'in', ids)
    .orderBy('p.name')
    .execute()
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    members: Number(r.members ?? 0),
    flags: { total: Number(r.total ?? 0), stale: Number(r.stale ?? 0), potentiallyStale: Number(r.potentially_stale ?? 0) } satisfies FlagCounts,
  }))
}

/** The person's favourite features and those they created, not archived, newest first (at most 100). */
export async function personalFlags (db: Queryable, userId: number) {
  return db
    .selectFrom('features as f')
    .select(['f.name', 'f.type', 'f.project_id as project'])
    .where('f.archived_at', 'is', null)
    .where((eb) =>
      eb.or([
        eb('f.created_by_user_id', '=', userId),
        eb.exists(eb.selectFrom('favorite_features as ff').select('ff.feature_name').whereRef('ff.feature_name', '=', 'f.name').where('ff.user_id', '=', userId)),
      ])
    )
    .orderBy('f.created_at', 'desc')
    .orderBy('f.name')
    .limit(100)
    .execute()
}

/** The Admins: people whose own root role or a group's is Admin. */
export async function admins (db: Queryable) {
  return db
    .selectFrom('users as u')
    .select(['u.id', 'u.name', 'u.username', 'u.email'])
    .where((eb) =>
      eb.or([
        eb('u.root_role', '=', 'Admin'),
        eb.exists(eb.selectFrom('group_users as gu').innerJoin('groups as g', 'g.id', 'gu.group_id').select('gu.user_id').whereRef('gu.user_id', '=', 'u.id').where('g.root_role', '=', 'Admin')),
      ])
    )
    .orderBy('u.id')
    .execute()
}

/** The person's roles in a project: their own and their groups'. */
export async function projectRolesOf (db: Queryable, userId: number, project: string): Promise<string[]> {
  const rows = await db
    .selectFrom('project_roles')
    .select('role')
    .where('user_id', '=', userId)
    .where('project_id', '=', project)
    .union(
      db
        .selectFrom('group_project_roles as g')
        .innerJoin('group_users as u', 'u.group_id', 'g.group_id')
        .select('g.role')
        .where('u.user_id', '=', userId)
        .where('g.project_id', '=', project)
    )
    .execute()
  return rows.map((r) => r.role)
}

/** The newest events of a project. */
export async function latestProjectEvents (db: Queryable, project: string, limit: number) {
  return db
    .selectFrom('events')
    .select(['id', 'created_by', 'created_at'])
    .where('project', '=', project)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute()
}

/**
 * What Unleash's onboarding reads of a project: whether an SDK reported evaluating one of its
 * features, whether one of them was ever switched on, and one of its features (not archived).
 */
export async function onboardingFacts (db: Queryable, project: string) {
  const row = await db
    .selectFrom(sql<{ one: number }>`(select 1 as one)`.as('one'))
    .select((eb) => [
      eb.exists(eb.selectFrom('usage_evaluations as u').innerJoin('features as f', 'f.name', 'u.feature_name').select('u.feature_name').where('f.project_id', '=', project)).as('sdk'),
      eb.exists(eb.selectFrom('events').select('id').where('project', '=', project).where('type', '=', 'feature-environment-enabled')).as('enabled'),
      eb.selectFrom('features').select('name').where('project_id', '=', project).where('archived_at', 'is', null).orderBy('created_at').orderBy('name').limit(1).as('feature'),
    ])
    .executeTakeFirstOrThrow()
  return { sdk: Boolean(row.sdk), enabled: Boolean(row.enabled), feature: row.feature ?? undefined }
}
