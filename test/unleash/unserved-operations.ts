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
  // Archive
  'POST /api/admin/archive/revive/{featureName}': { owner: 38, reason: 'no route: revive one archived flag' },
  'DELETE /api/admin/archive/{featureName}': { owner: 38, reason: 'no route: delete an archived flag for good (Terraform)' },
  'POST /api/admin/projects/{projectId}/delete': { owner: 38, reason: 'no route: delete archived flags in bulk' },
  // Auth
  'POST /auth/reset/password': { owner: 38, reason: 'no route: set a password with a reset token' },
  'POST /auth/reset/password-email': { owner: 38, reason: 'no route: ask for a reset link (no mail server: nothing to send; the admin hands on the link)' },
  'GET /auth/reset/validate': { owner: 38, reason: 'no route: check a password-reset token' },
  'POST /auth/reset/validate-password': { owner: 38, reason: 'no route: check a password against the rules without a session' },
  // Client
  'GET /api/client/features/{featureName}': { owner: 38, reason: 'no route: one flag of the client API' },
  // Context
  'GET /api/admin/projects/{projectId}/context': { owner: 38, reason: 'no route: the context fields of a project (with include=root, the root ones too)' },
  'POST /api/admin/projects/{projectId}/context': { owner: 38, reason: 'no route: a context field of a project' },
  'POST /api/admin/projects/{projectId}/context/validate': { owner: 38, reason: 'no route: is this context field name free in the project' },
  'DELETE /api/admin/projects/{projectId}/context/{contextField}': { owner: 38, reason: "no route: delete a project's context field" },
  'GET /api/admin/projects/{projectId}/context/{contextField}': { owner: 38, reason: 'no route: one context field of a project' },
  'PUT /api/admin/projects/{projectId}/context/{contextField}': { owner: 38, reason: "no route: update a project's context field" },
  'POST /api/admin/projects/{projectId}/context/{contextField}/legal-values': { owner: 38, reason: "no route: add or update a legal value of a project's context field" },
  'DELETE /api/admin/projects/{projectId}/context/{contextField}/legal-values/{legalValue}': { owner: 38, reason: "no route: delete a legal value of a project's context field" },
  // Dependencies
  'GET /api/admin/projects/{projectId}/dependencies': { owner: 38, reason: 'no route: does the project have any dependencies (a boolean)' },
  'GET /api/admin/projects/{projectId}/features/{child}/parents': { owner: 38, reason: 'no route: the flags this one may depend on' },
  'GET /api/admin/projects/{projectId}/features/{parent}/parent-variants': { owner: 38, reason: 'no route: the variants of a parent, for a dependency' },
  // Environments
  'GET /api/admin/environments/project/{projectId}': { owner: 38, reason: 'no route: the environments of a project (Terraform)' },
  'PUT /api/admin/environments/sort-order': { owner: 38, reason: "no route: the environments' order" },
  'GET /api/admin/environments/{name}': { owner: 38, reason: 'no route: one environment (Terraform)' },
  'POST /api/admin/environments/{name}/off': { owner: 38, reason: 'no route: disable an environment' },
  'POST /api/admin/environments/{name}/on': { owner: 38, reason: 'no route: enable an environment' },
  // Events
  'GET /api/admin/event-creators': { owner: 38, reason: "no route: who has created events (the event log's filter)" },
  'GET /api/admin/events/{featureName}': { owner: 38, reason: "no route: one flag's events (deprecated in Unleash, still served)" },
  'GET /api/admin/search/events': { owner: 38, reason: "no route: the event log's search (Unleash's UI reads only this)" },
  // Features
  'POST /api/admin/features/validate': { owner: 38, reason: 'no route: is this flag name free and valid (the create dialog)' },
  'GET /api/admin/lifecycle/count': { owner: 38, reason: 'no route: how many flags are in each lifecycle stage' },
  'POST /api/admin/projects/{projectId}/archive': { owner: 38, reason: 'no route: archive flags in bulk' },
  'POST /api/admin/projects/{projectId}/archive/validate': { owner: 38, reason: 'no route: which of these flags have children that are not archived' },
  'POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/off': { owner: 38, reason: 'no route: disable flags in bulk' },
  'POST /api/admin/projects/{projectId}/bulk_features/environments/{environment}/on': { owner: 38, reason: 'no route: enable flags in bulk' },
  'DELETE /api/admin/projects/{projectId}/favorites': { owner: 38, reason: 'no route: unmark a favourite project' },
  'POST /api/admin/projects/{projectId}/favorites': { owner: 38, reason: 'no route: mark a project as a favourite' },
  'PATCH /api/admin/projects/{projectId}/features/{featureName}': { owner: 38, reason: "405: JSON Patch of a flag's description, type, stale, impressionData" },
  'POST /api/admin/projects/{projectId}/features/{featureName}/clone': { owner: 38, reason: 'no route: clone a flag' },
  'GET /api/admin/projects/{projectId}/features/{featureName}/environments/{environment}': { owner: 38, reason: 'no route: a flag in one environment (enabled, strategies, variants)' },
  'DELETE /api/admin/projects/{projectId}/features/{featureName}/favorites': { owner: 38, reason: 'no route: unmark a favourite flag' },
  'POST /api/admin/projects/{projectId}/features/{featureName}/favorites': { owner: 38, reason: 'no route: mark a flag as a favourite' },
  'POST /api/admin/projects/{projectId}/features/{featureName}/link': { owner: 38, reason: 'no route: add a link to a flag (links are exported and imported too)' },
  'DELETE /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}': { owner: 38, reason: "no route: delete a flag's link" },
  'PUT /api/admin/projects/{projectId}/features/{featureName}/link/{linkId}': { owner: 38, reason: "no route: change a flag's link" },
  // Instance Admin
  'GET /api/admin/instance-admin/statistics': { owner: 38, reason: 'no route: instance statistics' },
  'GET /api/admin/instance-admin/statistics/csv': { owner: 38, reason: 'no route: instance statistics as CSV' },
  // Maintenance
  'GET /api/admin/maintenance': { owner: 38, reason: 'no route: is maintenance mode on' },
  'POST /api/admin/maintenance': { owner: 38, reason: 'no route: switch maintenance mode (every write then refused with 503)' },
  // Projects
  'GET /api/admin/personal-dashboard': { owner: 38, reason: "no route: the signed-in user's flags and projects" },
  'GET /api/admin/personal-dashboard/{projectId}': { owner: 38, reason: 'no route: one project on the personal dashboard' },
  'GET /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: "no route: a project's API tokens" },
  'POST /api/admin/projects/{projectId}/api-tokens': { owner: 38, reason: 'no route: create an API token for one project' },
  'DELETE /api/admin/projects/{projectId}/api-tokens/{token}': { owner: 38, reason: "no route: delete a project's API token (by secret)" },
  'GET /api/admin/projects/{projectId}/applications': { owner: 38, reason: "no route: the applications that use a project's flags (reads the usage 41 also reads)" },
  'DELETE /api/admin/projects/{projectId}/environments/{environment}': { owner: 38, reason: 'no route: take an environment out of a project (Terraform)' },
  'POST /api/admin/projects/{projectId}/environments/{environment}/default-strategy': { owner: 38, reason: "no route: a project's default strategy in an environment" },
  'GET /api/admin/projects/{projectId}/flag-creators': { owner: 38, reason: "no route: who created a project's flags" },
  'GET /api/admin/projects/{projectId}/overview': { owner: 38, reason: "no route: the project overview with onboardingStatus (Unleash's UI reads it on every project screen)" },
  'GET /api/admin/projects/{projectId}/status': { owner: 38, reason: "no route: a project's status (activity, resources, health, lifecycle summary)" },
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
  'GET /api/admin/projects/{projectId}/context/{contextField}/strategies': { owner: 38, reason: "no route: the strategies using a project's context field" },
  'POST /api/admin/segments/strategies': { owner: 38, reason: "405 (our /api/admin/segments/:id has no POST): set a strategy's segments" },
  'DELETE /api/admin/strategies/{name}': { owner: 38, reason: '405: delete a strategy definition' },
  // Tags
  'PUT /api/admin/projects/{projectId}/tags': { owner: 38, reason: 'no route: add and remove tags on several flags' },
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
  'GET /api/admin/projects': { owner: 38, reason: 'no version member (Unleash: version 1, required); none of health, featureCount, memberCount, mode, onboardingStatus, owners … either' },
  'GET /api/admin/projects/{projectId}/features': { owner: 38, reason: 'no version; features lack stale and favorite (required) and carry project and lifecycle (not allowed); their environments lack type, sortOrder, variantCount, lastSeenAt (required)' },
  'GET /api/admin/environments': { owner: 38, reason: 'no version; environments lack enabled, protected, sortOrder (required) and carry createdAt (not allowed)' },
}
