/**
 * The one place that lists what operations.test.ts lets pass: the operations of Unleash 8.2's
 * OpenAPI this server does not serve yet, and the ones it serves with answers that do not validate
 * against Unleash's response schema. Each entry names the issue that owns it and why. The test
 * fails when an operation is unserved but not listed, and when a listed one is served (or
 * validates) now: the lists only shrink.
 *
 * Keys are `METHOD /path` exactly as in Unleash's document (`{param}` names and all).
 */

/** The issue that will serve it: 38 (every operation), 41 (insight), 42 (relay); or a documented exception. */
export type Owner = 38 | 41 | 42 | 'exception'

export interface Listed {
  owner: Owner
  reason: string
}

/** A 404 whose body reads like this says that no route matched (ours: `No route GET /x`; Unleash's: `The path you were looking for (/x) is not available.`). */
export const NO_ROUTE_MESSAGE = /^No route |^The path you were looking for /

/** Operations this server does not serve: no route, 405, or a route of ours with a parameter where Unleash's path has a word. */
export const UNSERVED: Record<string, Listed> = {
  // Issue 38: the rest of Unleash's open-source admin API (every operation of it served now).

  // Issue 41: the playground, feature search, usage reads, stale flags, project health and insights.

}

/** Reads both servers answer with 200 where ours does not validate against Unleash's response schema. */
export const SCHEMA_MISMATCHES: Record<string, Listed> = {
}
