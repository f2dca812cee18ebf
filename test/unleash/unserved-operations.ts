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
  // Issue 38: the rest of Unleash's open-source admin API.
  // API tokens
  'GET /api/admin/api-tokens/{name}': { owner: 38, reason: '405 (our /api/admin/api-tokens/:tokenName has only DELETE): the tokens of a name' },
  'PUT /api/admin/api-tokens/{token}': { owner: 38, reason: "405: change a token's expiry, by its secret (Terraform)" },
  // Addons
  'GET /api/admin/addons/{id}/events': { owner: 38, reason: "no route: an integration's delivery log in Unleash's shape (ours is …/deliveries)" },
  // Events
  'GET /api/admin/event-creators': { owner: 38, reason: "no route: who has created events (the event log's filter)" },
  'GET /api/admin/events/{featureName}': { owner: 38, reason: "no route: one flag's events (deprecated in Unleash, still served)" },
  'GET /api/admin/search/events': { owner: 38, reason: "no route: the event log's search (Unleash's UI reads only this)" },
  // Projects
  'GET /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: "no route: a project's API tokens" },
  'POST /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: 'no route: create an API token for one project' },
  'DELETE /api/admin/projects/{projectId}/api-tokens/{token}': { owner: 38, reason: "no route: delete a project's API token (by secret)" },
  // Segments
  'GET /api/admin/segments/strategies/{strategyId}': { owner: 38, reason: 'no route: the segments of a strategy' },
  // Strategies
  'POST /api/admin/segments/strategies': { owner: 38, reason: "405 (our /api/admin/segments/:id has no POST): set a strategy's segments" },
  'DELETE /api/admin/strategies/{name}': { owner: 38, reason: '405: delete a strategy definition' },

  // Issue 41: the playground, feature search, usage reads, stale flags, project health and insights.

  // Issue 42: the relay (Edge's routes).
  'POST /api/client/metrics/bulk': { owner: 42, reason: "no route: Edge's batched metrics (issue 42)" },
  'POST /edge/issue-token': { owner: 42, reason: 'no route: Edge asks for a token (issue 42)' },
  'POST /edge/validate': { owner: 42, reason: 'no route: Edge validates tokens (issue 42)' },
}

/** Reads both servers answer with 200 where ours does not validate against Unleash's response schema. */
export const SCHEMA_MISMATCHES: Record<string, Listed> = {
  'GET /api/admin/events': { owner: 38, reason: 'no version member (Unleash: version 1, required)' },
  'GET /api/admin/addons': { owner: 38, reason: "providers: no documentationUrl (required), and parameters are names where Unleash's are objects {name, displayName, type, required, sensitive, …}" },
  'GET /api/admin/api-tokens': { owner: 38, reason: "tokens carry environments (ours may cover several), not in Unleash's apiTokenSchema (additionalProperties: false); no secret either (stored only as hashes here)" },
}
