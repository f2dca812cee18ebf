import { describe, expect, it } from 'vitest'
import { applicationsPage, averageTimeToProduction, groupApplications, healthRating, onboardingStatus } from '../../src/catalog/project-rules.js'

const DAY = 86_400_000

describe('healthRating', () => {
  it('is the rounded share of flags not potentially stale; 100 without flags', () => {
    expect(healthRating(0, 0)).toBe(100)
    expect(healthRating(3, 1)).toBe(67)
    expect(healthRating(2, 1)).toBe(50)
    expect(healthRating(4, 4)).toBe(0)
  })
})

describe('onboardingStatus', () => {
  it('follows Unleash: SDK and a flag on, SDK only, a flag, nothing', () => {
    expect(onboardingStatus({ sdkConnected: true, everEnabled: true, firstFlag: 'a' })).toEqual({ status: 'onboarded' })
    expect(onboardingStatus({ sdkConnected: true, everEnabled: false, firstFlag: null })).toEqual({ status: 'sdk-connected' })
    expect(onboardingStatus({ sdkConnected: false, everEnabled: true, firstFlag: 'a' })).toEqual({ status: 'first-flag-created', feature: 'a' })
    expect(onboardingStatus({ sdkConnected: false, everEnabled: false, firstFlag: null })).toEqual({ status: 'onboarding-started' })
  })
})

describe('averageTimeToProduction', () => {
  it('averages whole days to one decimal, at least 0.1 when any flag got there, 0 when none did', () => {
    const created = new Date('2025-01-01T00:00:00Z')
    const at = (days: number) => ({ created, enabled: new Date(created.getTime() + days * DAY) })
    expect(averageTimeToProduction([])).toBe(0)
    expect(averageTimeToProduction([at(0.5)])).toBe(0.1)
    expect(averageTimeToProduction([at(1), at(2.9), at(4)])).toBe(2.3)
  })
})

describe('applicationsPage', () => {
  it('reads the query as Unleash: defaults for anything it cannot read', () => {
    expect(applicationsPage({})).toEqual({ terms: [], limit: 50, offset: 0, descending: false })
    expect(applicationsPage({ query: ' a, ,b ', limit: '100', offset: '3', sortOrder: 'desc' })).toEqual({ terms: ['a', 'b'], limit: 100, offset: 3, descending: true })
    expect(applicationsPage({ limit: '101', offset: '-1', sortOrder: 'DESC' })).toEqual({ terms: [], limit: 50, offset: 0, descending: false })
    expect(applicationsPage({ limit: '2.5', offset: 'x' })).toMatchObject({ limit: 50, offset: 0 })
  })
})

describe('groupApplications', () => {
  it('groups rows by application, keeping their order, each list sorted, SDKs split at the first colon', () => {
    expect(groupApplications([
      { app: 'b', environment: 'production', instance: 'i2', sdkVersion: 'unleash-client-node:6.1.0' },
      { app: 'b', environment: 'development', instance: 'i1', sdkVersion: 'unleash-client-node:5.0.0' },
      { app: 'b', environment: 'development', instance: null, sdkVersion: null },
      { app: 'a', environment: 'development', instance: 'x', sdkVersion: 'custom' },
      { app: 'a', environment: 'development', instance: 'y', sdkVersion: 'go:1:2' },
    ])).toEqual([
      { name: 'b', environments: ['development', 'production'], instances: ['i1', 'i2'], sdks: [{ name: 'unleash-client-node', versions: ['5.0.0', '6.1.0'] }] },
      { name: 'a', environments: ['development'], instances: ['x', 'y'], sdks: [{ name: 'custom', versions: [] }, { name: 'go', versions: ['1:2'] }] },
    ])
  })
})
