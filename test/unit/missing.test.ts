import { describe, expect, it } from 'vitest'
import type { ApiError } from '../../src/errors.js'
import { absence, type Presence } from '../../src/features/missing.js'

const everything: Presence = { project: true, featureProject: 'p', archived: false, environment: true, enabled: true }
const target = { project: 'p', feature: 'f', environment: 'dev' }
const explained = (error: ApiError | undefined) => error && { name: error.name, status: error.status, message: error.message }

describe('absence', () => {
  it.each<{ name: string, presence: Partial<Presence>, target?: { project: string, feature?: string, environment?: string }, options?: Parameters<typeof absence>[2], refusal?: { name: string, status: number, message: string } }>([
    { name: 'nothing missing: no refusal', presence: {} },
    { name: 'no project: 404 naming it, first', presence: { project: false, featureProject: null, environment: false }, refusal: { name: 'NotFoundError', status: 404, message: 'Project p does not exist' } },
    { name: 'no feature of that name: 404 naming feature and project', presence: { featureProject: null }, refusal: { name: 'NotFoundError', status: 404, message: 'Feature f does not exist in project p' } },
    { name: 'the feature is in another project: the same 404', presence: { featureProject: 'other' }, refusal: { name: 'NotFoundError', status: 404, message: 'Feature f does not exist in project p' } },
    { name: 'archived: 409 saying to revive it', presence: { archived: true }, refusal: { name: 'FeatureArchivedError', status: 409, message: 'Feature f is archived; revive it first' } },
    { name: 'archived is fine for archive and revive', presence: { archived: true }, options: { archivedIsFine: true } },
    { name: 'archived comes before a missing environment', presence: { archived: true, environment: false }, refusal: { name: 'FeatureArchivedError', status: 409, message: 'Feature f is archived; revive it first' } },
    { name: 'no environment: 404 naming it', presence: { environment: false, enabled: false }, refusal: { name: 'NotFoundError', status: 404, message: 'Environment dev does not exist' } },
    { name: 'environment not enabled in the project: 404 saying so', presence: { enabled: false }, refusal: { name: 'NotFoundError', status: 404, message: 'Environment dev is not enabled in project p' } },
    { name: 'not enabled is fine when it need not be', presence: { enabled: false }, options: { mustBeEnabled: false } },
    { name: 'a path without a feature ignores the feature', presence: { featureProject: null, archived: true }, target: { project: 'p', environment: 'dev' } },
    { name: 'a path without an environment ignores it', presence: { environment: false, enabled: false }, target: { project: 'p', feature: 'f' } },
    { name: 'a project alone', presence: { project: false }, target: { project: 'p' }, refusal: { name: 'NotFoundError', status: 404, message: 'Project p does not exist' } },
  ])('$name', ({ presence, target: t = target, options, refusal }) => {
    expect(explained(absence({ ...everything, ...presence }, t, options))).toEqual(refusal)
  })
})
