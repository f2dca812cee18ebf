import type { Transaction } from 'kysely'
import type { Database, DB } from '../db/types.js'
import { moveOnEvaluation } from '../lifecycle/lifecycle.service.js'
import type { UsageLimits } from './admission.js'
import { type Batch, instanceKeyOf, keyOf } from './batch.js'
import { addCounts, isProduction, lockTokenUsage, markEvaluated, readTokenUsage, recordUnknownFlags, touchInstances, upsertApplications, upsertInstances } from './usage.store.js'

/**
 * A feature evaluated in an environment whose lifecycle was just looked at (and moved if it
 * had to be) is not looked at again for this long: stages only move forward, so a second look
 * finds nothing to do, but for a feature revived or uncompleted meanwhile, which its next
 * evaluation moves this much later at most. Environment types are kept as long.
 */
const SETTLED_MS = 60_000
const MAX_SETTLED = 100_000

export interface BatchWriterOptions {
  limits: UsageLimits
  /** Told when a write or a lifecycle move fails, or when reports past a cap are dropped. */
  onError: (error: unknown, message: string) => void
  /** Reports of this token passed a cap here: what the instance believes stored for it is wrong. */
  passedCaps: (token: string) => void
}

/**
 * Writes a batch of usage: in one transaction, the applications, instances and counts (none
 * past a token's caps, counted again under the token's lock), then the lifecycle moves of the
 * features evaluated for the first time, each a change with its event.
 */
export class BatchWriter {
  /** `environment\nfeature` → until when its lifecycle needs no look */
  readonly #settled = new Map<string, number>()
  readonly #production = new Map<string, { production: boolean; until: number }>()

  constructor (private readonly db: Database, private readonly options: BatchWriterOptions) {}

  /** Writes the batch; rejects when its transaction fails (nothing of it is then written). */
  async write (batch: Batch): Promise<void> {
    const { stored, counted } = await this.db.transaction().execute((trx) => this.#store(trx, batch))
    await this.#moveLifecycles(stored, counted)
  }

  async #store (trx: Transaction<DB>, batch: Batch) {
    const refused = await this.#pastCaps(trx, batch)
    const stored = await upsertApplications(trx, [...batch.applications].filter(([key]) => !refused.has(key)).map(([, a]) => a))
    const ids = new Map(stored.map((a) => [keyOf(a), a.id]))
    const id = (application: string) => ids.get(application)!
    const instances = [...batch.instances].filter(([key]) => !refused.has(key)).map(([, i]) => i)
    if (instances.length > 0) {
      await upsertInstances(trx, instances.map(({ application, ...rest }) => ({ applicationId: id(application), ...rest })))
    }
    // A registration in the same batch says more than a metrics report: it is written instead.
    const touched = [...batch.touched].filter(([key, i]) => !refused.has(key) && !refused.has(i.application) && !batch.instances.has(key)).map(([, i]) => i)
    if (touched.length > 0) {
      await touchInstances(trx, touched.map(({ application, ...rest }) => ({ applicationId: id(application), ...rest })))
    }
    const counts = [...batch.counts.values()].filter((c) => !refused.has(c.application))
    const counted = counts.length === 0 ? [] : await addCounts(trx, counts.map(({ application, ...rest }) => ({ applicationId: id(application), ...rest })))
    if (counted.length < counts.length) {
      // Some were not counted: those that name no feature are unknown flags.
      const countedNames = new Set(counted.map((row) => `${row.application_id}\n${row.feature_name}`))
      const missed = counts.filter((c) => !countedNames.has(`${id(c.application)}\n${c.feature}`))
      await recordUnknownFlags(trx, missed.map((c) => {
        const app = batch.applications.get(c.application)!
        return { name: c.feature, appName: app.appName, environment: app.environment, at: c.lastSeenAt }
      }))
    }
    if (counted.length > 0) {
      // When each counted feature was last evaluated in its environment.
      const latest = new Map<string, { feature: string; environment: string; at: Date }>()
      for (const c of counts) {
        const key = `${id(c.application)}\n${c.feature}`
        const seen = latest.get(key)
        if (!seen || seen.at < c.lastSeenAt) latest.set(key, { feature: c.feature, environment: c.environment, at: c.lastSeenAt })
      }
      await markEvaluated(trx, counted.map((row) => latest.get(`${row.application_id}\n${row.feature_name}`)!))
    }
    if (refused.size > 0) {
      this.options.onError(new Error(`${refused.size} applications and instances past CLIENT_MAX_APPLICATIONS or CLIENT_MAX_INSTANCES`), 'reports admitted by several instances at once passed a cap; what is past it is not stored')
    }
    return { stored, counted }
  }

  /**
   * The applications and instances of the batch that are new and past their token's caps,
   * counted under the token's lock (tokens in name order, so that flushes of several instances
   * cannot deadlock); admitted in the order this instance admitted them.
   */
  async #pastCaps (trx: Transaction<DB>, batch: Batch): Promise<Set<string>> {
    const refused = new Set<string>()
    const { maxApplications, maxInstances } = this.options.limits
    for (const token of [...batch.added.keys()].sort()) {
      const added = batch.added.get(token)!
      if (added.applications.size === 0 && added.instances.size === 0) continue
      await lockTokenUsage(trx, token)
      const rows = await readTokenUsage(trx, token)
      const applications = new Set(rows.map((row) => keyOf({ tokenName: token, ...row })))
      const instances = new Set(rows.flatMap((row) => (row.instanceId === null ? [] : [instanceKeyOf(keyOf({ tokenName: token, ...row }), row.instanceId)])))
      for (const application of added.applications) {
        if (applications.has(application)) continue
        if (applications.size >= maxApplications) refused.add(application)
        else applications.add(application)
      }
      for (const instance of added.instances) {
        if (instances.has(instance)) continue
        const application = instance.slice(0, instance.indexOf('\n'))
        if (refused.has(application) || instances.size >= maxInstances) refused.add(instance)
        else instances.add(instance)
      }
      if ([...added.applications, ...added.instances].some((key) => refused.has(key))) this.options.passedCaps(token)
    }
    return refused
  }

  /** The first evaluations move the lifecycle, one change per token and environment. */
  async #moveLifecycles (applications: Awaited<ReturnType<typeof upsertApplications>>, counted: readonly { feature_name: string; application_id: number }[]) {
    const byId = new Map(applications.map((a) => [a.id, a]))
    const groups = new Map<string, { token: string; environment: string; features: Set<string> }>()
    for (const row of counted) {
      const application = byId.get(row.application_id)!
      const group = `${application.tokenName}\n${application.environment}`
      if (!groups.has(group)) groups.set(group, { token: application.tokenName, environment: application.environment, features: new Set() })
      groups.get(group)!.features.add(row.feature_name)
    }
    for (const { token, environment, features } of groups.values()) {
      const now = Date.now()
      const unsettled = [...features].filter((f) => (this.#settled.get(`${environment}\n${f}`) ?? 0) <= now).sort()
      if (unsettled.length === 0) continue
      try {
        const waiting = await moveOnEvaluation(this.db, unsettled, { name: environment, production: await this.#isProduction(environment, now) }, { name: token })
        if (this.#settled.size + unsettled.length > MAX_SETTLED) this.#settled.clear()
        for (const f of unsettled) if (!waiting.has(f)) this.#settled.set(`${environment}\n${f}`, now + SETTLED_MS)
      } catch (error) {
        this.options.onError(error, 'moving the lifecycle of evaluated features failed; the next report of them moves it')
      }
    }
  }

  async #isProduction (environment: string, now: number): Promise<boolean> {
    const known = this.#production.get(environment)
    if (known && known.until > now) return known.production
    const production = await isProduction(this.db, environment)
    if (this.#production.size > 1000) this.#production.clear()
    this.#production.set(environment, { production, until: now + SETTLED_MS })
    return production
  }
}
