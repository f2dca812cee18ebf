import { describe, expect, it } from 'vitest'
import { legalValueProblems } from '../../src/context/legal-values.js'
import { duplicates, exportedConstraint, importedConstraint, refusalOf, validationOf, type Findings } from '../../src/import-export/import-rules.js'

const none: Findings = {
  project: 'default',
  unsupportedStrategies: [],
  contextFieldsLackingValues: [],
  otherProjectFeatures: [],
  duplicateFeatures: [],
  unsupportedSegments: [],
  missingDependencies: [],
  missingTagTypes: [],
  strangers: [],
  customStrategies: [],
  archivedFeatures: [],
  existingFeatures: [],
  ignoredMembers: [],
  missingPermissions: [],
}

describe('constraints between an export and the single routes', () => {
  it("drops what the operator does not read, as Unleash exports it (value '' on a list operator, values [] on a single one)", () => {
    expect(importedConstraint({ contextName: 'a', operator: 'IN', values: ['x'], value: '', inverted: false, caseInsensitive: false })).toEqual({ contextName: 'a', operator: 'IN', values: ['x'], inverted: false, caseInsensitive: false })
    expect(importedConstraint({ contextName: 'a', operator: 'NUM_GT', values: [], value: '3' })).toEqual({ contextName: 'a', operator: 'NUM_GT', value: '3' })
    expect(importedConstraint({ contextName: 'a', operator: 'IN', values: [] })).toEqual({ contextName: 'a', operator: 'IN', values: [] })
    expect(importedConstraint({ contextName: 'a', operator: 'IN', values: ['x'], extra: 1 } as never)).toEqual({ contextName: 'a', operator: 'IN', values: ['x'] })
  })

  it('exports a single-value constraint with values: [] beside value, and leaves list operators alone', () => {
    expect(exportedConstraint({ contextName: 'a', operator: 'SEMVER_EQ', value: '1.0.0' })).toEqual({ contextName: 'a', operator: 'SEMVER_EQ', value: '1.0.0', values: [] })
    expect(exportedConstraint({ contextName: 'a', operator: 'IN', values: ['x'] })).toEqual({ contextName: 'a', operator: 'IN', values: ['x'] })
    // and back again
    expect(importedConstraint(exportedConstraint({ contextName: 'a', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00Z' }) as never)).toEqual({ contextName: 'a', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00Z' })
  })
})

describe('the validation messages', () => {
  it('lists names given twice once, in the order of their second appearance', () => {
    expect(duplicates(['a', 'b', 'a', 'c', 'b', 'a'])).toEqual(['a', 'b'])
    expect(duplicates([])).toEqual([])
  })

  it('leaves out kinds with nothing in them, and refuses nothing then', () => {
    expect(validationOf(none)).toEqual({ errors: [], warnings: [], permissions: [] })
    expect(refusalOf(none)).toBeUndefined()
  })

  it("refuses with Unleash's import messages", () => {
    expect(refusalOf({ ...none, otherProjectFeatures: ['f (in project p)'] })?.message).toBe('These features exist already in other projects: f (in project p)')
    expect(refusalOf({ ...none, unsupportedSegments: ['s'] })?.message).toBe('Unsupported segments: s')
    expect(refusalOf({ ...none, missingDependencies: ['p'] })?.message).toBe('The following dependent features are missing: p')
    const strategies = refusalOf({ ...none, unsupportedStrategies: ['x', 'y'] })
    expect([strategies?.message, strategies?.details]).toEqual(['Some of the strategies you are trying to import are not supported.', [{ message: 'x is not supported.' }, { message: 'y is not supported.' }]])
  })
})

describe('legal values', () => {
  const legal = [{ value: 'gold' }, { value: 'silver' }]
  it('allow any value when a field has none, only those otherwise, list and single operators alike', () => {
    expect(legalValueProblems({ contextName: 'plan', operator: 'IN', values: ['bronze'] }, [], '/c')).toEqual([])
    expect(legalValueProblems({ contextName: 'plan', operator: 'IN', values: ['gold'] }, legal, '/c')).toEqual([])
    expect(legalValueProblems({ contextName: 'plan', operator: 'IN', values: ['gold', 'bronze'] }, legal, '/c').map((p) => p.at)).toEqual(['/c/values/1'])
    const [problem] = legalValueProblems({ contextName: 'plan', operator: 'STR_CONTAINS', values: ['x'] }, legal, '/c')
    expect(problem?.describe('/c/values/0')).toBe('/c/values/0 is x, which is not a legal value of the context field plan')
    expect(legalValueProblems({ contextName: 'plan', operator: 'NUM_EQ', value: '5' }, legal, '/c').map((p) => p.at)).toEqual(['/c/value'])
  })
})
