import { ALL, coversEnvironment, type TokenScope } from '../access/scope.js'
import { readClientState } from '../client/client.service.js'
import { readSnapshot } from '../db/snapshot.js'
import type { Database } from '../db/types.js'
import { permissionDenied } from '../errors.js'
import type { TraceState } from '../evaluation/trace.js'
import { advancedPlaygroundAnswer, playgroundAnswer } from './playground-answers.js'

export { MAX_EVALUATIONS } from './playground-answers.js'
import type { AdvancedPlaygroundRequest, AdvancedPlaygroundResponse, PlaygroundRequest, PlaygroundResponse } from './playground.schemas.js'

/**
 * The state the playground evaluates, by environment: the flags of the projects asked for (those
 * not in the environment too, off there) with all their strategies, and the segments those use.
 * The answers (playground-answers.ts) take it as an input: the current state, read here, or the
 * one a change would make (a change request's preview passes its own).
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

/**
 * The projects to evaluate: those asked for (`*` or none: all) within the caller's; a project
 * outside them is left out, as Unleash leaves out the projects a caller may not see. Undefined:
 * every project.
 */
export function projectsInScope (token: TokenScope, asked: PlaygroundRequest['projects']): readonly string[] | undefined {
  const all = token.projects.includes(ALL)
  if (asked === undefined || asked === ALL) return all ? undefined : token.projects
  return all ? asked : asked.filter((p) => token.projects.includes(p))
}

/** 403 unless the caller may read every environment named. */
function requireEnvironments (token: TokenScope, environments: readonly string[]) {
  for (const environment of environments) {
    if (!coversEnvironment(token, environment)) throw permissionDenied(`API token ${token.name} has no access to environment ${environment}`)
  }
}

/** POST /api/admin/playground on the current state. */
export async function playground (db: Database, token: TokenScope, request: PlaygroundRequest): Promise<PlaygroundResponse> {
  requireEnvironments(token, [request.environment])
  const states = await readPlaygroundState(db, [request.environment], projectsInScope(token, request.projects))
  return playgroundAnswer(states.get(request.environment)!, request)
}

/** POST /api/admin/playground/advanced on the current state. */
export async function advancedPlayground (db: Database, token: TokenScope, request: AdvancedPlaygroundRequest): Promise<AdvancedPlaygroundResponse> {
  requireEnvironments(token, request.environments)
  const states = await readPlaygroundState(db, request.environments, projectsInScope(token, request.projects))
  return advancedPlaygroundAnswer(states, request)
}
