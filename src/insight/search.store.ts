import { type Expression, type ExpressionBuilder, type SelectQueryBuilder, sql, type SqlBool } from 'kysely'
import { ALL, type TokenScope } from '../access/scope.js'
import type { DB, Queryable } from '../db/types.js'
import type { StageName } from '../vocabulary/stages.js'
import { currentStageOf } from '../lifecycle/lifecycle.store.js'
import { type FeatureSearch, likeSubstring, TOKEN_CREATOR_ID } from './search-query.js'

/** The tables a search reads, as this store names them: the feature `f` and its type `ft`. */
type Searched = DB & { f: DB['features']; ft: DB['feature_types'] }
type Eb = ExpressionBuilder<Searched, 'f' | 'ft'>

/**
 * Whether the feature outlived its type's expected lifetime and is not marked stale: what
 * Unleash calls potentially stale, computed when read.
 */
export const potentiallyStale = (eb: Eb) =>
  eb.and([
    eb('f.stale', '=', false),
    eb('ft.lifetime_days', 'is not', null),
    eb('f.created_at', '<=', sql<Date>`now() - make_interval(days => ${eb.ref('ft.lifetime_days')})`),
  ])

/** When any environment last evaluated the feature (Unleash's feature-level lastSeenAt). */
const featureLastSeen = (eb: Eb) =>
  eb.selectFrom('usage_evaluations as fls').select((e) => e.fn.max('fls.last_seen_at').as('at')).whereRef('fls.feature_name', '=', 'f.name')

/**
 * The feature's environments a search shows: those the token covers, and (as Unleash filters
 * the rows of its join, not the features) only those that pass `status` and `lastSeenAt`.
 */
function keptEnvironments (eb: Eb, search: FeatureSearch, token: TokenScope) {
  let query = eb
    .selectFrom('feature_environments as fe')
    .leftJoin('usage_evaluations as ue', (join) => join.onRef('ue.feature_name', '=', 'fe.feature_name').onRef('ue.environment', '=', 'fe.environment_name'))
    .whereRef('fe.feature_name', '=', 'f.name')
  if (!token.environments.includes(ALL)) query = query.where('fe.environment_name', 'in', token.environments)
  if (search.status.length > 0) {
    query = query.where((e) => e.or(search.status.map((s) => e.and([e('fe.environment_name', '=', s.environment), e('fe.enabled', '=', s.enabled)]))))
  }
  const lastSeen = search.lastSeenAt
  if (lastSeen) {
    query = query.where((e) => e(e.fn.coalesce('ue.last_seen_at', featureLastSeen(eb)), lastSeen.before ? '<' : '>=', lastSeen.at))
  }
  return query
}

/** Whether the search filters the environment rows (then a feature needs one row that passes). */
const filtersEnvironments = (search: FeatureSearch) => search.status.length > 0 || search.lastSeenAt !== undefined

const taggedWith = (eb: Eb, tags: { type: string; value: string }[]) =>
  eb
    .selectFrom('feature_tags as t')
    .select('t.feature_name')
    .where((e) => e.or(tags.map((tag) => e.and([e('t.tag_type', '=', tag.type), e('t.tag_value', '=', tag.value)]))))

const inSegments = (eb: Eb, names: string[]) =>
  eb
    .selectFrom('feature_strategies as fs')
    .innerJoin('feature_strategy_segments as fss', 'fss.strategy_id', 'fs.id')
    .innerJoin('segments as s', 's.id', 'fss.segment_id')
    .select('fs.feature_name')
    .where('s.name', 'in', names)

/** The feature-level conditions of a search (the environment rows' are in keptEnvironments). */
function conditions (eb: Eb, search: FeatureSearch, token: TokenScope) {
  const all: Expression<SqlBool>[] = []
  const add = (condition: Expression<SqlBool>) => all.push(condition)
  const lifecycle = search.lifecycle
  const archived = lifecycle.archivedAt === 'set' ? eb('f.archived_at', 'is not', null) : lifecycle.archivedAt === 'null' ? eb('f.archived_at', 'is', null) : undefined
  if (archived) add(archived)
  if (lifecycle.stage) {
    const stage = currentStageOf(eb)
    // Other names than stages are bound as they are and match no stage.
    const names = lifecycle.stage.names as StageName[]
    const inStages = lifecycle.stage.in ? eb(stage, 'in', names) : eb(stage, 'not in', names)
    add(lifecycle.orArchived ? eb.or([inStages, eb('f.archived_at', 'is not', null)]) : inStages)
  }
  if (!token.projects.includes(ALL)) add(eb('f.project_id', 'in', token.projects))
  for (const [column, filter] of [['f.project_id', search.project], ['f.type', search.type]] as const) {
    if (filter) add(eb(column, filter.include ? 'in' : 'not in', filter.values))
  }
  if (search.query.length > 0) {
    add(eb.or(search.query.flatMap((q) => [eb('f.name', 'ilike', likeSubstring(q)), eb('f.description', 'ilike', likeSubstring(q))])))
  }
  if (search.createdAt) add(eb('f.created_at', search.createdAt.before ? '<' : '>=', search.createdAt.at))
  if (search.createdBy) {
    const { include, ids } = search.createdBy
    const users = ids.filter((id) => id !== TOKEN_CREATOR_ID)
    const creator = eb
      .selectFrom('events as ce')
      .select('ce.feature_name')
      .where('ce.type', '=', 'feature-created')
      .where((e) => {
        const byUser = users.length > 0 ? e('ce.created_by_user_id', 'in', users) : e.lit(false)
        const byToken = ids.includes(TOKEN_CREATOR_ID) ? e('ce.created_by_user_id', 'is', null) : e.lit(false)
        const named = e.or([byUser, byToken])
        return include ? named : e.not(named)
      })
    add(eb('f.name', 'in', creator))
  }
  if (search.state) {
    const states = search.state
    const ps = potentiallyStale(eb)
    add(eb.or([
      ...(states.includes('stale') ? [eb('f.stale', '=', true)] : []),
      ...(states.includes('potentially-stale') ? [ps] : []),
      ...(states.includes('active') ? [eb.and([eb('f.stale', '=', false), eb.not(ps)])] : []),
    ]))
  }
  if (search.tag) {
    const { match, tags } = search.tag
    const tagged = taggedWith(eb, tags)
    const every = taggedWith(eb, tags).groupBy('t.feature_name').having((e) => e.fn.count('t.feature_name'), '=', tags.length)
    add(match === 'any' ? eb('f.name', 'in', tagged) : match === 'none' ? eb('f.name', 'not in', tagged) : match === 'all' ? eb('f.name', 'in', every) : eb('f.name', 'not in', every))
  }
  if (search.segment) {
    const { match, names } = search.segment
    const used = inSegments(eb, names)
    const every = inSegments(eb, names).groupBy('fs.feature_name').having((e) => e.fn.count('s.name').distinct(), '=', names.length)
    add(match === 'any' ? eb('f.name', 'in', used) : match === 'none' ? eb('f.name', 'not in', used) : match === 'all' ? eb('f.name', 'in', every) : eb('f.name', 'not in', every))
  }
  if (search.onlyFavorites) add(eb.lit(false))
  if (filtersEnvironments(search)) add(eb.exists(keptEnvironments(eb, search, token).select('fe.environment_name')))
  return eb.and(all)
}

function searched (db: Queryable, search: FeatureSearch, token: TokenScope) {
  return db
    .selectFrom('features as f')
    .innerJoin('feature_types as ft', 'ft.id', 'f.type')
    .where((eb) => conditions(eb, search, token))
}

/** The sort's first key, per feature; ties go by creation, then name. */
function sortValue (eb: Eb, search: FeatureSearch, token: TokenScope) {
  const { sort, order } = search
  switch (sort.by) {
    case 'name': return eb.ref('f.name')
    case 'type': return eb.ref('f.type')
    case 'stale': return eb.ref('f.stale')
    case 'project': return eb.ref('f.project_id')
    case 'createdAt': return eb.ref('f.created_at')
    case 'environment':
      return keptEnvironments(eb, search, token).select('fe.enabled').where('fe.environment_name', '=', sort.environment).limit(1).$asScalar()
    case 'lastSeenAt': {
      const seen = keptEnvironments(eb, search, token).select((e) => {
        const each = e.fn.coalesce('ue.last_seen_at', featureLastSeen(eb))
        return (order === 'asc' ? e.fn.min(each) : e.fn.max(each)).as('at')
      })
      return eb.fn.coalesce(seen.$asScalar(), featureLastSeen(eb).$asScalar())
    }
  }
}

/**
 * The names of one page of the features the search finds, in its order, and how many it finds
 * in all (two statements over the same conditions).
 */
export async function searchFeatureNames (db: Queryable, search: FeatureSearch, token: TokenScope) {
  const nullsLast = search.sort.by === 'environment' || search.sort.by === 'lastSeenAt'
  let page: SelectQueryBuilder<Searched, 'f' | 'ft', { name: string }> = searched(db, search, token).select('f.name')
  page = page.orderBy((eb) => sortValue(eb, search, token), (ob) => {
    const ordered = search.order === 'desc' ? ob.desc() : ob.asc()
    return nullsLast ? ordered.nullsLast() : ordered
  })
  if (search.sort.by !== 'createdAt') page = page.orderBy('f.created_at', 'asc')
  else if (search.order === 'desc') page = page.orderBy('f.name', 'asc')
  page = page.orderBy('f.name', 'asc')
  const [rows, counted] = await Promise.all([
    page.offset(search.offset).limit(search.limit).execute(),
    searched(db, search, token).select((eb) => eb.fn.countAll<string>().as('total')).executeTakeFirstOrThrow(),
  ])
  return { names: rows.map((r) => r.name), total: Number(counted.total) }
}

/** The page's features, each with its type's lifetime (potentiallyStale), keyed by name. */
export async function searchedFeatures (db: Queryable, names: string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('features as f')
    .innerJoin('feature_types as ft', 'ft.id', 'f.type')
    .select((eb) => [
      'f.name', 'f.project_id', 'f.description', 'f.type', 'f.stale', 'f.impression_data', 'f.created_at', 'f.archived_at',
      potentiallyStale(eb).as('potentially_stale'),
      eb.exists(eb.selectFrom('feature_dependencies as d').select('d.parent').whereRef('d.child', '=', 'f.name')).as('is_child'),
      eb.exists(eb.selectFrom('feature_dependencies as d').select('d.child').whereRef('d.parent', '=', 'f.name')).as('is_parent'),
    ])
    .where('f.name', 'in', names)
    .execute()
}

/** The environments the search shows of the page's features, with what Unleash's summary says of each. */
export async function searchedEnvironments (db: Queryable, names: string[], search: FeatureSearch, token: TokenScope) {
  if (names.length === 0) return []
  return db
    .selectFrom('features as f')
    .innerJoin('feature_types as ft', 'ft.id', 'f.type')
    .innerJoinLateral((eb) => keptEnvironments(eb, search, token).select(['fe.environment_name', 'fe.enabled', 'fe.variants', 'ue.last_seen_at']).as('kept'), (join) => join.onTrue())
    .innerJoin('environments as env', 'env.name', 'kept.environment_name')
    .select((eb) => [
      'f.name as feature_name', 'kept.environment_name', 'kept.enabled', 'kept.last_seen_at', 'env.type',
      sql<number>`json_array_length(${eb.ref('kept.variants')}::json)`.as('variant_count'),
      eb.exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'f.name').whereRef('s.environment_name', '=', 'kept.environment_name')).as('has_strategies'),
      eb.exists(eb.selectFrom('feature_strategies as s').select('s.id').whereRef('s.feature_name', '=', 'f.name').whereRef('s.environment_name', '=', 'kept.environment_name').where('s.disabled', '=', false)).as('has_enabled_strategies'),
    ])
    .where('f.name', 'in', names)
    .execute()
}

/** Yes and no counts of the last hour, per feature and environment (what Unleash's search shows). */
export async function lastHourCounts (db: Queryable, names: string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('usage_counts as c')
    .innerJoin('usage_applications as a', 'a.id', 'c.application_id')
    .select((eb) => ['c.feature_name', 'a.environment', eb.fn.sum<string>('c.yes').as('yes'), eb.fn.sum<string>('c.no').as('no')])
    .where('c.feature_name', 'in', names)
    .where('c.hour', '>=', sql<Date>`now() - interval '1 hour'`)
    .groupBy(['c.feature_name', 'a.environment'])
    .execute()
}

/** The tags of the page's features (only those of the filter when it asks for any of them, as Unleash shows), with their type's colour. */
export async function searchedTags (db: Queryable, names: string[], only?: { type: string; value: string }[]) {
  if (names.length === 0) return []
  let query = db
    .selectFrom('feature_tags as t')
    .innerJoin('tag_types as tt', 'tt.name', 't.tag_type')
    .select(['t.feature_name', 't.tag_type', 't.tag_value', 'tt.color'])
    .where('t.feature_name', 'in', names)
    .orderBy('t.created_at')
    .orderBy('t.tag_type')
    .orderBy('t.tag_value')
  if (only) query = query.where((e) => e.or(only.map((tag) => e.and([e('t.tag_type', '=', tag.type), e('t.tag_value', '=', tag.value)]))))
  return query.execute()
}

/** The segments the page's features' strategies use, by name. */
export async function searchedSegments (db: Queryable, names: string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('feature_strategies as fs')
    .innerJoin('feature_strategy_segments as fss', 'fss.strategy_id', 'fs.id')
    .innerJoin('segments as s', 's.id', 'fss.segment_id')
    .select(['fs.feature_name', 's.name'])
    .distinct()
    .where('fs.feature_name', 'in', names)
    .orderBy('fs.feature_name')
    .orderBy('s.name')
    .execute()
}

/** Who created each of the page's features (the feature-created event, and the user it names). */
export async function creators (db: Queryable, names: string[]) {
  if (names.length === 0) return []
  return db
    .selectFrom('events as e')
    .leftJoin('users as u', 'u.id', 'e.created_by_user_id')
    .distinctOn('e.feature_name')
    .select(['e.feature_name', 'e.created_by_user_id', 'u.id as user_id', 'u.name', 'u.username', 'u.email'])
    .where('e.type', '=', 'feature-created')
    .where('e.feature_name', 'in', names)
    .orderBy('e.feature_name')
    .orderBy('e.id', 'desc')
    .execute()
}
