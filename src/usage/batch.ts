import type { TokenScope } from '../access/scope.js'
import { type ApplicationKey, MAX_VARIANT_NAMES, type PendingCounts, type SeenApplication, type SeenInstance, type TouchedInstance } from './usage.store.js'

/** An application as its token reports it: the token's environment and scope, and the app name. */
export const applicationKey = (token: TokenScope, appName: string): ApplicationKey => ({
  tokenName: token.name,
  environment: token.environments[0]!,
  projects: JSON.stringify(token.projects),
  appName,
})

/** An application's key in memory: its token is part of it, as in the stored key, so that tokens never share one. */
export const keyOf = (key: ApplicationKey) => JSON.stringify([key.tokenName, key.environment, key.projects, key.appName])
export const instanceKeyOf = (application: string, instanceId: string) => `${application}\n${instanceId}`

/** Counts as the store writes them, under the application's key in memory (its id is known at the flush). */
export type Counts = Omit<PendingCounts, 'applicationId'> & { application: string }

/** An instance as the store writes it, under the application's key in memory. */
export type Instance = Omit<SeenInstance, 'applicationId'> & { application: string }

/** An instance seen in a metrics report (not a registration), under the application's key in memory. */
export type Touched = Omit<TouchedInstance, 'applicationId'> & { application: string }

/** The applications and instances one token added that were not stored when they were admitted. */
export interface Added {
  applications: Set<string>
  instances: Set<string>
}

/** What was reported since the last flush, summed: one row per application, instance, and feature and hour. */
export class Batch {
  readonly applications = new Map<string, SeenApplication>()
  readonly instances = new Map<string, Instance>()
  /** Instances that reported metrics: their registration (if any) is kept, they are marked seen. */
  readonly touched = new Map<string, Touched>()
  readonly counts = new Map<string, Counts>()
  /** Per token, the applications and instances it added that were not stored when admitted. */
  readonly added = new Map<string, Added>()

  get size () {
    return this.applications.size + this.instances.size + this.touched.size + this.counts.size
  }

  addedBy (token: string): Added {
    let added = this.added.get(token)
    if (!added) this.added.set(token, (added = { applications: new Set(), instances: new Set() }))
    return added
  }

  seeApplication (application: string, key: ApplicationKey, at: Date) {
    const seen = this.applications.get(application)
    if (!seen || seen.lastSeenAt < at) this.applications.set(application, { ...key, lastSeenAt: at })
  }

  seeInstance (instance: Instance) {
    const key = instanceKeyOf(instance.application, instance.instanceId)
    const seen = this.instances.get(key)
    if (!seen || seen.lastSeenAt <= instance.lastSeenAt) this.instances.set(key, instance)
  }

  touchInstance (instance: Touched) {
    const key = instanceKeyOf(instance.application, instance.instanceId)
    const seen = this.touched.get(key)
    if (!seen || seen.lastSeenAt <= instance.lastSeenAt) this.touched.set(key, { ...instance, sdkVersion: instance.sdkVersion ?? seen?.sdkVersion ?? null })
  }

  count (counts: Counts) {
    const key = `${counts.application}\n${counts.hour.getTime()}\n${counts.feature}`
    const sum = this.counts.get(key)
    if (!sum) {
      this.counts.set(key, counts)
      return
    }
    sum.yes += counts.yes
    sum.no += counts.no
    if (sum.lastSeenAt < counts.lastSeenAt) sum.lastSeenAt = counts.lastSeenAt
    // Names already counted add up; new ones join in name order while there is room, as the
    // stored row keeps them.
    let names = Object.keys(sum.variants).length
    for (const name of Object.keys(counts.variants).sort()) {
      if (sum.variants[name] !== undefined) sum.variants[name] += counts.variants[name]!
      else if (names < MAX_VARIANT_NAMES) {
        sum.variants[name] = counts.variants[name]!
        names++
      }
    }
  }

  /** Takes in an older batch that could not be written. */
  absorb (older: Batch) {
    for (const [application, seen] of older.applications) this.seeApplication(application, seen, seen.lastSeenAt)
    for (const instance of older.instances.values()) if (!this.instances.has(instanceKeyOf(instance.application, instance.instanceId))) this.seeInstance(instance)
    for (const instance of older.touched.values()) if (!this.touched.has(instanceKeyOf(instance.application, instance.instanceId))) this.touchInstance(instance)
    for (const counts of older.counts.values()) this.count(counts)
    for (const [token, added] of older.added) {
      const mine = this.addedBy(token)
      for (const a of added.applications) mine.applications.add(a)
      for (const i of added.instances) mine.instances.add(i)
    }
  }
}
