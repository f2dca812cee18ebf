/**
 * Unleash Enterprise 7.4.1's changeRequest* response schemas (test/fixtures, copied from its
 * public Admin OpenAPI document), and the check that every answer of a change request route a
 * test file provoked has that shape: what Unleash's own clients read.
 */
import { readFileSync } from 'node:fs'
import { Ajv, type ValidateFunction } from 'ajv'
import addFormats from 'ajv-formats'
import { afterAll, expect } from 'vitest'
import type { TestApp } from '../../helpers/app.js'

const fixture = JSON.parse(readFileSync(new URL('../../fixtures/unleash-7.4.1-change-request-schemas.json', import.meta.url), 'utf8')) as {
  info: { version: string }
  schemas: Record<string, object>
}

const ajv = new Ajv({ strict: false, allErrors: true })
addFormats.default(ajv)
for (const [name, schema] of Object.entries(fixture.schemas)) ajv.addSchema(schema, `#/components/schemas/${name}`)

/** The 7.4.1 schema of each change request route's 2xx answer (routes without a body: none). */
const SCHEMA_OF: Record<string, string> = {
  'GET /api/admin/projects/:projectId/change-requests/config': 'changeRequestConfigSchema',
  'POST /api/admin/projects/:projectId/environments/:environment/change-requests': 'changeRequestSchema',
  'GET /api/admin/projects/:projectId/change-requests/scheduled': 'changeRequestScheduledResultSchema',
  'GET /api/admin/projects/:projectId/change-requests/count': 'changeRequestsCountSchema',
  'GET /api/admin/projects/:projectId/change-requests/open': 'changeRequestsSchema',
  'GET /api/admin/projects/:projectId/change-requests/pending': 'changeRequestsSchema',
  'GET /api/admin/projects/:projectId/change-requests/actionable': 'actionableChangeRequestsSchema',
  'GET /api/admin/projects/:projectId/change-requests': 'changeRequestsSchema',
  'GET /api/admin/projects/:projectId/change-requests/pending/:featureName': 'changeRequestsSchema',
  'GET /api/admin/projects/:projectId/change-requests/:id': 'changeRequestSchema',
  'PUT /api/admin/projects/:projectId/change-requests/:changeRequestId/changes/:changeId': 'changeRequestSchema',
  'PUT /api/admin/projects/:projectId/change-requests/:id/state': 'changeRequestSchema',
  'GET /api/admin/projects/:projectId/change-requests/:id/approvers': 'changeRequestAvailableReviewersSchema',
  'GET /api/admin/projects/:projectId/change-requests/available-reviewers/:environment': 'changeRequestAvailableReviewersSchema',
}

export const UNLEASH_VERSION = fixture.info.version
export const unleashSchema = (name: string): ValidateFunction => ajv.getSchema(`#/components/schemas/${name}`)!

/** Each 2xx answer with a body of a change request route that breaks its 7.4.1 schema, one line each; and how many were checked. */
export function shapeViolations (t: TestApp) {
  const violations: string[] = []
  let checked = 0
  for (const r of t.responses) {
    const name = r.route === undefined ? undefined : SCHEMA_OF[`${r.method} ${r.route}`]
    if (name === undefined || r.status >= 300 || r.body === '') continue
    checked++
    const validate = unleashSchema(name)
    if (!validate(JSON.parse(r.body))) violations.push(`${r.method} ${r.route} → ${r.status}: ${ajv.errorsText(validate.errors)}: ${r.body.slice(0, 400)}`)
  }
  return { violations, checked }
}

/** After the file's tests (before its app closes): every change request answer they provoked has Unleash's shape. */
export function checkUnleashShapesAfterAll (t: TestApp, atLeast = 1) {
  afterAll(() => {
    const { violations, checked } = shapeViolations(t)
    expect(violations).toEqual([])
    expect(checked).toBeGreaterThanOrEqual(atLeast)
  })
}
