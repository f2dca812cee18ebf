/** The UI's words for the server's vocabulary, and who may do what. */
import { describe, expect, it } from 'vitest'
import { FEATURE_TYPES } from '../../../src/vocabulary/flag-types'
import { ROLE_IDS, ROOT_ROLES } from '../../../src/vocabulary/roles'
import { STAGES } from '../../../src/vocabulary/stages'
import { FLAG_TYPE_OPTIONS, flagTypeLabel, LISTED_STAGE_OPTIONS, percent, personName, STAGE_LABELS, strategyLabel, tagLabel } from '../../../web/lib/labels'
import { commaList, lines, updateAt } from '../../../web/lib/lists'
import { may, mayIn, roleOf } from '../../../web/lib/roles'

describe('labels', () => {
  it('offers every flag type the server accepts, in its order (sunset too)', () => {
    expect(FLAG_TYPE_OPTIONS.map((o) => o.value)).toEqual([...FEATURE_TYPES])
    expect(flagTypeLabel('kill-switch')).toBe('Kill switch')
    expect(flagTypeLabel('sunset')).toBe('Sunset')
    expect(flagTypeLabel('made-up')).toBe('made-up')
  })

  it('names every stage; a list filters by every stage but archived, in lifecycle order', () => {
    expect(Object.keys(STAGE_LABELS).sort()).toEqual([...STAGES].sort())
    expect(LISTED_STAGE_OPTIONS).toEqual([
      { value: 'initial', label: 'Initial' },
      { value: 'pre-live', label: 'Pre-live' },
      { value: 'live', label: 'Live' },
      { value: 'completed', label: 'Completed' },
    ])
  })

  it('names strategies: built-in ones as people know them, custom ones by their display name or title', () => {
    const definition = { name: 'byRegion', displayName: null, title: 'By region', description: null, editable: true, deprecated: false, parameters: [] }
    expect(strategyLabel('flexibleRollout')).toBe('Gradual rollout')
    expect(strategyLabel('byRegion', [definition])).toBe('By region')
    expect(strategyLabel('byRegion', [{ ...definition, displayName: 'Regions' }])).toBe('Regions')
    expect(strategyLabel('unknown', [definition])).toBe('unknown')
  })

  it('shows weights, tags and people', () => {
    expect(percent(333)).toBe('33.3%')
    expect(percent(1000)).toBe('100.0%')
    expect(tagLabel({ type: 'release', value: 'q4' })).toBe('release:q4')
    expect(personName({ id: 7, name: '', username: null, email: 'a@b.c' })).toBe('a@b.c')
    expect(personName({ id: 7 })).toBe('user 7')
  })
})

describe('lists typed as text', () => {
  it('reads values one per line or separated by commas, without blanks', () => {
    expect(lines(' a \n\n b\n')).toEqual(['a', 'b'])
    expect(commaList('a, ,b ,')).toEqual(['a', 'b'])
  })

  it('patches one item of a list', () => {
    let seen: { n: number }[] = []
    updateAt([{ n: 1 }, { n: 2 }], (items) => { seen = items })(1, { n: 3 })
    expect(seen).toEqual([{ n: 1 }, { n: 3 }])
  })
})

describe('roles', () => {
  const me = (rootRole: number, permissions: string[] = []) => ({
    user: { id: 1, name: null, username: 'x', rootRole, createdAt: '', seenAt: null, accountType: 'User' as const },
    permissions: permissions.map((permission) => ({ permission })),
  })

  it('reads the root role by its id, as the server numbers them', () => {
    for (const role of ROOT_ROLES) expect(roleOf(me(ROLE_IDS[role]))).toBe(role)
    expect(roleOf(me(99, ['ADMIN']))).toBe('Admin')
    expect(roleOf(me(99))).toBe('Viewer')
  })

  it('lets an Admin do everything, an Editor change flags, a Viewer nothing', () => {
    expect([may('Admin', 'admin'), may('Admin', 'change-flags')]).toEqual([true, true])
    expect([may('Editor', 'admin'), may('Editor', 'change-flags')]).toEqual([false, true])
    expect([may('Viewer', 'admin'), may('Viewer', 'change-flags')]).toEqual([false, false])
  })

  it('lets a Member of a project change its flags, and only there, whatever their root role', () => {
    const member = { ...me(ROLE_IDS.Viewer), permissions: [{ permission: 'UPDATE_FEATURE_ENVIRONMENT', project: 'web', environment: '*' }] }
    expect([mayIn(member, 'change-flags', 'web'), mayIn(member, 'change-flags', 'app'), mayIn(member, 'change-flags'), mayIn(member, 'admin', 'web')]).toEqual([true, false, false, false])
    expect([mayIn(me(ROLE_IDS.Viewer), 'change-flags', 'web'), mayIn(me(ROLE_IDS.Editor), 'change-flags', 'web'), mayIn(me(ROLE_IDS.Editor), 'change-flags')]).toEqual([false, true, true])
  })
})
