import { ALL, coversEnvironment, type TokenScope } from '../access/scope.js'
import { readClientState } from '../client/client.service.js'
import { readSnapshot } from '../db/snapshot.js'
import type { Database } from '../db/types.js'
import { permissionDenied } from '../errors.js'
import { committedVersion } from '../events/events.store.js'
import { type TraceState, Tracer } from '../evaluation/trace.js'
import { advancedPlaygroundAnswer, playgroundAnswer } from './playground-answers.js'
import type { AdvancedPlaygroundRequest, AdvancedPlaygroundResponse, PlaygroundRequest, PlaygroundResponse } from './playground.schemas.js'

export { MAX_EVALUATIONS } from './playground-answers.js'

/**
 * The state the playground evaluates, by environment: the flags of the projects asked for (those
 * not in the environment too, off there) with all their strategies, and the segments those use.
 * The answers take it compiled (`new Tracer(state)`): the current state, which `Tracers` keeps,
 * or the one a change would make (a change request's preview compiles its own: see
 * `evaluatePlayground`).
 */
export type PlaygroundState = ReadonlyMap<string, TraceState>

/**
 * The current state of `environments`, read as the frontend engines read theirs (the client
 * API's reads, in the playground's view), every environment in one snapshot. `projects`
 * undefined: every project.
 */
export async function readPlaygroundState (db: Database, environments: readonly string[], projects: readonly string[] | undefined): Promise<PlaygroundState> {
  if (projects !== undefined && projects.length === 0) return new Map(environments.map((environment) => [environment, { features: [], segments: [] }]))
  return readSnapshot(db, async (trx) => {
    const states = new Map<string, TraceState>()
    for (const environment of new Set(environments)) {
      states.set(environment, await readClientState(trx, { environment, projects, playground: true }, false))
    }
    return states
  })
}

/** Compiled states kept at once (environment and project set), the least recently used dropped first. */
const MAX_KEPT = 16

/**
 * The current state compiled for tracing, per environment and project set, read and compiled
 * once per state version, so that asking again costs one small query (the version, read on
 * every request: a change is answered at once, on any instance) and the evaluation. Concurrent
 * requests share a build; a failed build is not kept.
 */
export class Tracers {
  readonly #kept = new Map<string, { version: string; tracer: Promise<Tracer> }>()

  constructor (private readonly db: Database) {}

  /** The compiled state of each environment, all of one state version (those not kept read together, in one snapshot). */
  async for (environments: readonly string[], projects: readonly string[] | undefined): Promise<Map<string, Tracer>> {
    const version = await committedVersion(this.db)
    const key = (environment: string) => JSON.stringify([environment, projects ?? null])
    const missing = [...new Set(environments)].filter((e) => this.#kept.get(key(e))?.version !== version)
    if (missing.length > 0) {
      const read = readPlaygroundState(this.db, missing, projects)
      for (const environment of missing) {
        const tracer = read.then((states) => new Tracer(states.get(environment)!))
        this.#kept.set(key(environment), { version, tracer })
        tracer.catch(() => {
          if (this.#kept.get(key(environment))?.tracer === tracer) this.#kept.delete(key(environment))
        })
      }
    }
    // Taken before any wait, so that other requests' builds meanwhile cannot change what this one reads.
    const entries = environments.map((environment) => {
      const entry = this.#kept.get(key(environment))!
      // Most recently used last.
      this.#kept.delete(key(environment))
      this.#kept.set(key(environment), entry)
      return [environment, entry.tracer] as const
    })
    while (this.#kept.size > MAX_KEPT) this.#kept.delete(this.#kept.keys().next().value as string)
    const tracers = new Map<string, Tracer>()
    for (const [environment, tracer] of entries) tracers.set(environment, await tracer)
    return tracers
  }
}

/**
 * The projects to evaluate: those asked for (`*` or none: all) within the caller's; a project
 * outside them is left out, as Unleash leaves out the projects a caller may not see. Undefined:
 * every project.
 */
export function projectsInScope (token: TokenScope, asked: PlaygroundRequest['projects']): readonly string[] | undefined {
  const all = token.projects.includes(ALL)
  if (asked === undefined || asked === ALL) return all ? undefined : token.projects
  return all ? [...new Set(asked)].sort() : [...new Set(asked.filter((p) => token.projects.includes(p)))].sort()
}

/** 403 unless the caller may read every environment named. */
function requireEnvironments (token: TokenScope, environments: readonly string[]) {
  for (const environment of environments) {
    if (!coversEnvironment(token, environment)) throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
  }
}

/** POST /api/admin/playground on the current state. */
export async function playground (tracers: Tracers, token: TokenScope, request: PlaygroundRequest): Promise<PlaygroundResponse> {
  requireEnvironments(token, [request.environment])
  const compiled = await tracers.for([request.environment], projectsInScope(token, request.projects))
  return playgroundAnswer(compiled.get(request.environment)!, request)
}

/** POST /api/admin/playground/advanced on the current state. */
export async function advancedPlayground (tracers: Tracers, token: TokenScope, request: AdvancedPlaygroundRequest): Promise<AdvancedPlaygroundResponse> {
  requireEnvironments(token, request.environments)
  return advancedPlaygroundAnswer(await tracers.for(request.environments, projectsInScope(token, request.projects)), request)
}

/** The playground's answer for a state of one's own (a change's preview): compiled for this request only. */
export function evaluatePlayground (state: TraceState, request: PlaygroundRequest): PlaygroundResponse {
  return playgroundAnswer(new Tracer(state), request)
}
