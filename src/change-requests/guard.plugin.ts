import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify'
import fp from 'fastify-plugin'
import type { Database } from '../db/types.js'
import { permissionDenied } from '../errors.js'
import { findSegment } from '../segments/segments.store.js'
import { projectOfFeature } from './change-requests.store.js'
import type { ChangeRequestPolicy } from './policy.service.js'

/**
 * What a write route changes, for the change request policy (its `config.guard`):
 * - `environment`: a feature in the path's environment (`:projectId`, `:environment`);
 * - `environments`: a feature in the environments its body lists (`body.environments`);
 * - `project`: a feature in every environment of the path's project (archive, revive,
 *   dependencies): refused while any environment of the project is guarded;
 * - `feature`: the path's `:featureName` (archived or not), in its project: as `project`
 *   (the archive's routes by name: revive, delete for good);
 * - `segment`: the segment of the path's `:id`, when it belongs to a project: as `project`;
 * - `import`: the body's `project` and `environment` (an import);
 * - `none`: nothing change requests guard (a new feature, tags, lifecycle, metadata).
 * Every write route of a feature, an environment or a segment declares one (a test walks the
 * route table); a person's request to a guarded one is refused with 403, saying to use a change
 * request. API tokens write directly, and their events say so (a token's name, no user).
 */
export type Guard = 'environment' | 'environments' | 'project' | 'feature' | 'segment' | 'import' | 'none'

declare module 'fastify' {
  interface FastifyContextConfig {
    guard?: Guard
  }
  interface FastifyInstance {
    /** Each route's declared guard, `METHOD /url` → guard (undefined: none declared). */
    routeGuards: Map<string, Guard | undefined>
  }
}

const ADD = (project: string, environment: string) => `POST /api/admin/projects/${project}/environments/${environment}/change-requests`

const inEnvironment = (project: string, environment: string) =>
  permissionDenied(`Environment ${environment} of project ${project} requires change requests: people propose changes there in a change request (${ADD(project, environment)}), which others approve before it applies`)

const inProject = (project: string, guarded: ReadonlySet<string>) => {
  const [first] = [...guarded].sort()
  return permissionDenied(`Project ${project} requires change requests in ${[...guarded].sort().join(', ')}: archiving, dependencies and the project's segments change every environment, so people propose them in a change request (${ADD(project, first!)})`)
}

type Params = { projectId?: string; environment?: string; featureName?: string; id?: number }
type Body = { environments?: unknown; project?: unknown; environment?: unknown } | undefined

async function check (request: FastifyRequest, guard: Guard, policy: ChangeRequestPolicy, db: Database) {
  const params = request.params as Params
  const body = request.body as Body
  switch (guard) {
    case 'environment':
    case 'environments': {
      const project = params.projectId!
      const guarded = await policy.guarded(project)
      if (guarded.size === 0) return
      const environments = guard === 'environment' ? [params.environment!] : Array.isArray(body?.environments) ? (body.environments as string[]) : []
      const hit = environments.find((e) => guarded.has(e))
      if (hit !== undefined) throw inEnvironment(project, hit)
      return
    }
    case 'import': {
      if (typeof body?.project !== 'string' || typeof body.environment !== 'string') return
      if ((await policy.guarded(body.project)).has(body.environment)) throw inEnvironment(body.project, body.environment)
      return
    }
    case 'project': {
      const guarded = await policy.guarded(params.projectId!)
      if (guarded.size > 0) throw inProject(params.projectId!, guarded)
      return
    }
    case 'feature': {
      const project = params.featureName === undefined ? undefined : await projectOfFeature(db, params.featureName)
      if (project === undefined) return
      const guarded = await policy.guarded(project)
      if (guarded.size > 0) throw inProject(project, guarded)
      return
    }
    case 'segment': {
      const segment = params.id === undefined ? undefined : await findSegment(db, params.id)
      if (!segment?.project) return
      const guarded = await policy.guarded(segment.project)
      if (guarded.size > 0) throw inProject(segment.project, guarded)
    }
  }
}

/**
 * The change request policy on direct writes: after authentication and validation, a
 * person's (session or personal access token) request to a route whose guard names a guarded
 * environment is refused (403). Nothing is read for API tokens, nor on routes without a guard:
 * the hot path of automation pays one property lookup.
 */
export const guardPlugin = fp<{ policy: ChangeRequestPolicy; db: Database }>(
  async (app: FastifyInstance, { policy, db }) => {
    const guards = new Map<string, Guard | undefined>()
    app.decorate('routeGuards', guards)
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) guards.set(`${method} ${route.url}`, route.config?.guard)
    })
    app.addHook('preHandler', (request, _reply, done) => {
      const guard = request.routeOptions.config.guard
      if (guard === undefined || guard === 'none' || request.person === null) return done()
      check(request, guard, policy, db).then(() => done(), done)
    })
  },
  { name: 'change-request-guard', dependencies: ['auth'] }
)
