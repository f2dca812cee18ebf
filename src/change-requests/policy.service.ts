/**
 * The policy: which environments of a project need change requests, and how many approvals.
 * Read through a cache (one query for every project and environment; almost always nothing),
 * forgotten on every committed change on any instance (the change feed) and at once when this
 * instance saves a setting: a direct write is checked against it on every request of a person.
 */
import type { Database } from '../db/types.js'
import { requirePresent } from '../features/features.store.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, toJsonText } from '../events/events.schemas.js'
import { environmentSettings, guardedEnvironments, lockSetting, upsertSetting } from './change-requests.store.js'
import { clampApprovals } from './change-rules.js'

/** GET …/change-requests/config: every environment enabled in the project, with its setting. */
export async function projectConfig (db: Database, project: string) {
  await requirePresent(db, { project })
  return (await environmentSettings(db, project)).map((row) => ({
    environment: row.environment,
    type: row.type,
    changeRequestEnabled: row.enabled ?? false,
    requiredApprovals: row.required_approvals ?? 1,
  }))
}

/**
 * PUT …/environments/{e}/change-requests/config: on or off, with the approvals needed
 * (clamped into 1–10, as Unleash). The same setting again changes nothing and records nothing;
 * otherwise change-request-configuration-updated.
 */
export async function configure (writer: Writer, project: string, environment: string, body: { changeRequestsEnabled: boolean; requiredApprovals?: number }, createdBy: Author) {
  await requirePresent(readerOf(writer), { project, environment })
  const enabled = body.changeRequestsEnabled
  const requiredApprovals = clampApprovals(body.requiredApprovals)
  return withChange(writer, async ({ trx, record }) => {
    const before = await lockSetting(trx, project, environment)
    if (before && before.enabled === enabled && before.required_approvals === requiredApprovals) return
    await upsertSetting(trx, project, environment, enabled, requiredApprovals)
    record({
      type: 'change-request-configuration-updated',
      createdBy,
      project,
      environment,
      data: toJsonText({ changeRequestsEnabled: enabled, requiredApprovals }),
      ...(before && { preData: toJsonText({ changeRequestsEnabled: before.enabled, requiredApprovals: before.required_approvals }) }),
    })
  })
}

const NONE: ReadonlySet<string> = new Set()

/** The environments where change requests are on, by project: cached until the next committed change. */
export class ChangeRequestPolicy {
  #guarded: Map<string, Set<string>> | undefined
  #loading: Promise<Map<string, Set<string>>> | undefined
  /** Bumped by forget(): a load that began before it is not kept. */
  #generation = 0

  constructor (private readonly db: Database) {}

  /** A change was committed (on any instance): read the policy again when next asked. */
  forget (): void {
    this.#generation++
    this.#guarded = undefined
    this.#loading = undefined
  }

  /** The environments of this project where change requests are on. */
  async guarded (project: string): Promise<ReadonlySet<string>> {
    const all = this.#guarded ?? (await this.#load())
    return all.get(project) ?? NONE
  }

  #load (): Promise<Map<string, Set<string>>> {
    if (this.#loading) return this.#loading
    const generation = this.#generation
    const loading = guardedEnvironments(this.db).then((rows) => {
      const map = new Map<string, Set<string>>()
      for (const row of rows) {
        const set = map.get(row.project_id) ?? new Set<string>()
        set.add(row.environment_name)
        map.set(row.project_id, set)
      }
      if (generation === this.#generation) this.#guarded = map
      return map
    }).finally(() => {
      if (this.#loading === loading) this.#loading = undefined
    })
    this.#loading = loading
    return loading
  }
}
