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
  // Admin UI
  'POST /api/admin/feedback': { owner: 38, reason: 'no route: UI feedback (accept and ignore, or document as an exception)' },
  'PUT /api/admin/feedback/{id}': { owner: 38, reason: 'no route: UI feedback update (accept and ignore, or document as an exception)' },
  'POST /api/admin/record-ui-error': { owner: 38, reason: "no route: the UI's error report (accept and ignore: 204)" },
  'POST /api/admin/splash/{id}': { owner: 38, reason: 'no route: a splash screen seen by the user' },
  'GET /api/admin/ui-config': { owner: 38, reason: 'no route: the configuration every Unleash admin client reads first (versionInfo, authenticationType, flags, resourceLimits, maintenanceMode)' },
  'POST /api/admin/ui-config/cors': { owner: 38, reason: "no route: the frontend API's allowed origins, set at run time" },
  // Auth
  'POST /auth/reset/password': { owner: 38, reason: 'no route: set a password with a reset token' },
  'POST /auth/reset/password-email': { owner: 38, reason: 'no route: ask for a reset link (no mail server: nothing to send; the admin hands on the link)' },
  'GET /auth/reset/validate': { owner: 38, reason: 'no route: check a password-reset token' },
  'POST /auth/reset/validate-password': { owner: 38, reason: 'no route: check a password against the rules without a session' },
  // Events
  'GET /api/admin/event-creators': { owner: 38, reason: "no route: who has created events (the event log's filter)" },
  'GET /api/admin/events/{featureName}': { owner: 38, reason: "no route: one flag's events (deprecated in Unleash, still served)" },
  'GET /api/admin/search/events': { owner: 38, reason: "no route: the event log's search (Unleash's UI reads only this)" },
  // Instance Admin
  'GET /api/admin/instance-admin/statistics': { owner: 38, reason: 'no route: instance statistics' },
  'GET /api/admin/instance-admin/statistics/csv': { owner: 38, reason: 'no route: instance statistics as CSV' },
  // Maintenance
  'GET /api/admin/maintenance': { owner: 38, reason: 'no route: is maintenance mode on' },
  'POST /api/admin/maintenance': { owner: 38, reason: 'no route: switch maintenance mode (every write then refused with 503)' },
  // Projects
  'GET /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: "no route: a project's API tokens" },
  'POST /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: 'no route: create an API token for one project' },
  'DELETE /api/admin/projects/{projectId}/api-tokens/{token}': { owner: 38, reason: "no route: delete a project's API token (by secret)" },
  // Public signup tokens
  'GET /api/admin/invite-link/tokens': { owner: 38, reason: 'no route: public sign-up tokens' },
  'POST /api/admin/invite-link/tokens': { owner: 38, reason: 'no route: create a public sign-up token' },
  'GET /api/admin/invite-link/tokens/{token}': { owner: 38, reason: 'no route: one public sign-up token' },
  'PUT /api/admin/invite-link/tokens/{token}': { owner: 38, reason: "no route: change a sign-up token's expiry or enabled" },
  'POST /invite/{token}/signup': { owner: 38, reason: 'no route: sign up with a public sign-up token (no session)' },
  'GET /invite/{token}/validate': { owner: 38, reason: 'no route: is this sign-up token valid (no session)' },
  // Segments
  'GET /api/admin/segments/strategies/{strategyId}': { owner: 38, reason: 'no route: the segments of a strategy' },
  // Strategies
  'POST /api/admin/segments/strategies': { owner: 38, reason: "405 (our /api/admin/segments/:id has no POST): set a strategy's segments" },
  'DELETE /api/admin/strategies/{name}': { owner: 38, reason: '405: delete a strategy definition' },
  // Telemetry
  'GET /api/admin/telemetry/settings': { owner: 38, reason: 'no route: telemetry settings (answer both off: nothing is collected)' },
  // Users
  'GET /api/admin/user-admin/access': { owner: 38, reason: 'shadowed by our /api/admin/user-admin/:id (400 id must be integer): users and groups for access pickers' },
  'GET /api/admin/user-admin/admin-count': { owner: 38, reason: 'shadowed by our /api/admin/user-admin/:id (400 id must be integer): how many admins, by kind' },
  'GET /api/admin/user-admin/inactive': { owner: 38, reason: 'shadowed by our /api/admin/user-admin/:id (400 id must be integer): users not seen for 180 days' },
  'POST /api/admin/user-admin/inactive/delete': { owner: 38, reason: 'no route: delete inactive users' },
  'POST /api/admin/user-admin/reset-password': { owner: 38, reason: '405 (our /api/admin/user-admin/:id has no POST): a password-reset link for a user, handed to the admin' },
  'DELETE /api/admin/user-admin/scim-users': { owner: 38, reason: 'shadowed by our /api/admin/user-admin/:id (400 id must be integer): delete users made by SCIM (none here: 200, nothing deleted)' },

  // Issue 41: the playground, feature search, usage reads, stale flags, project health and insights.
  'POST /api/admin/playground': { owner: 41, reason: 'no route: the playground (issue 41)' },
  'POST /api/admin/playground/advanced': { owner: 41, reason: 'no route: the advanced playground (issue 41)' },

  // Issue 42: the relay (Edge's routes).
  'POST /api/client/metrics/bulk': { owner: 42, reason: "no route: Edge's batched metrics (issue 42)" },
  'POST /edge/issue-token': { owner: 42, reason: 'no route: Edge asks for a token (issue 42)' },
  'POST /edge/validate': { owner: 42, reason: 'no route: Edge validates tokens (issue 42)' },
}

/** Reads both servers answer with 200 where ours does not validate against Unleash's response schema. */
export const SCHEMA_MISMATCHES: Record<string, Listed> = {
  'GET /health': { owner: 38, reason: "ours answers {status: 'ok'}; Unleash's healthCheckSchema is {health: 'GOOD'} and nothing else (additionalProperties: false)" },
  'GET /ready': { owner: 38, reason: "ours answers {status: 'ready'}; Unleash's healthCheckSchema is {health: 'GOOD'} and nothing else" },
  'GET /api/admin/events': { owner: 38, reason: 'no version member (Unleash: version 1, required)' },
  'GET /api/admin/addons': { owner: 38, reason: "providers: no documentationUrl (required), and parameters are names where Unleash's are objects {name, displayName, type, required, sensitive, …}" },
  'GET /api/admin/api-tokens': { owner: 38, reason: "tokens carry environments (ours may cover several), not in Unleash's apiTokenSchema (additionalProperties: false); no secret either (stored only as hashes here)" },
}
