import { describe, expect, it } from 'vitest'
import { groupPathProblem, groupsAt, parseGroupPath } from '../../src/sso/group-claims.js'
import {
  changedFields,
  domainAllowed,
  effectiveSettings,
  fixedSettingsProblems,
  OIDC_DEFAULTS,
  SECRET_MASK,
  settingsAudit,
  settingsProblems,
  settingsView,
} from '../../src/sso/oidc-settings.js'
import { landingPath, navigating, sameOriginPath, signInProblemOf } from '../../src/sso/redirects.js'

describe('groupJsonPath', () => {
  const claims = {
    groups: ['admins', 'devs', 7, '', 'admins'],
    realm_access: { roles: ['flag-editors'] },
    'https://example.com/groups': ['okta-admins'],
    teams: [{ name: 'a' }, ['nested']],
    single: 'one-group',
    deep: { a: { b: { c: { d: { e: { f: { g: { h: { i: ['ten-deep'] } } } } } } } } },
  }

  it.each([
    ['groups', ['admins', 'devs']],
    ['$.groups', ['admins', 'devs']],
    ['realm_access.roles', ['flag-editors']],
    ['$.realm_access.roles', ['flag-editors']],
    ["$['https://example.com/groups']", ['okta-admins']],
    ['$["https://example.com/groups"]', ['okta-admins']],
    ['$.teams[1]', ['nested']],
    ['single', ['one-group']],
    ['deep.a.b.c.d.e.f.g.h.i', ['ten-deep']],
  ])('%s reads %j', (path, expected) => {
    expect(groupPathProblem(path)).toBeUndefined()
    expect(groupsAt(claims, path)).toEqual(expected)
  })

  it.each(['missing', 'realm_access.missing.roles', '$.teams[5]', '$.teams[0]', 'realm_access', 'groups[0]x'])('%s finds no groups', (path) => {
    expect(groupsAt(claims, path)).toEqual([])
  })

  it('reads own members only: __proto__, constructor and toString find nothing', () => {
    for (const path of ['__proto__', 'constructor', 'toString', 'groups.length', '$.__proto__.polluted', "$['constructor']['name']"]) {
      expect(groupsAt(claims, path), path).toEqual([])
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it.each([
    ['', 'must name at least one member'],
    ['$', 'must name at least one member'],
    ['a..b', 'cannot be read'],
    ['$.groups[?(@.x)]', 'cannot be read'],
    ['groups; process.exit()', 'cannot be read'],
    ['$..groups', 'cannot be read'],
    ['$[*]', 'cannot be read'],
    ['a.b.c.d.e.f.g.h.i.j.k', 'at most 10 steps'],
    ['a'.repeat(201), 'at most 200 characters'],
  ])('case %# is refused: %s', (path, why) => {
    expect(parseGroupPath(path)).toEqual(expect.stringContaining(why))
    expect(groupsAt(claims, path)).toEqual([])
  })

  it('takes at most 1000 names of at most 256 characters', () => {
    const many = { groups: [...Array.from({ length: 1500 }, (_, i) => `g${i}`), 'x'.repeat(257)] }
    const read = groupsAt(many, 'groups')
    expect(read).toHaveLength(1000)
    expect(read.every((g) => g.length <= 256)).toBe(true)
  })
})

describe('?redirect= after signing in', () => {
  it.each([
    ['/', '/'],
    ['/projects/default', '/projects/default'],
    ['/projects/default?tab=flags#top', '/projects/default?tab=flags#top'],
    ['/a/../b', '/b'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
  ])('%s is a path on this server: %s', (value, expected) => {
    expect(sameOriginPath(value)).toBe(expected)
  })

  it.each([
    '//evil.example/x',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    'https://evil.example/',
    'http:evil.example',
    'javascript:alert(1)',
    'evil.example',
    '/\tevil',
    '/ /evil',
    '/x\nLocation: https://evil.example',
    '',
  ])('%j could lead elsewhere: lands on /', (value) => {
    expect(sameOriginPath(value)).toBeUndefined()
    expect(landingPath(value)).toBe('/')
  })

  it('a path over 2000 characters lands on /', () => {
    expect(landingPath(`/${'a'.repeat(2000)}`)).toBe('/')
    expect(landingPath(`/${'a'.repeat(1999)}`)).toBe(`/${'a'.repeat(1999)}`)
  })
})

describe('the OpenID Connect settings', () => {
  const enabled = { ...OIDC_DEFAULTS, enabled: true, discoverUrl: 'https://idp.example.com/.well-known/openid-configuration', clientId: 'flags', secret: 's3cret' }

  it('are the defaults, then what was stored, then what the environment fixes', () => {
    expect(effectiveSettings({}, {})).toEqual(OIDC_DEFAULTS)
    expect(effectiveSettings({ clientId: 'stored', autoCreate: true }, { clientId: 'fixed' })).toEqual({ ...OIDC_DEFAULTS, clientId: 'fixed', autoCreate: true })
  })

  it('show a mask for a stored secret, never the secret, and which variable fixes which field', () => {
    const view = settingsView(enabled, { clientId: 'flags' })
    expect(view.secret).toBe(SECRET_MASK)
    expect(JSON.stringify(view)).not.toContain('s3cret')
    expect(view.lockedBy).toEqual({ clientId: 'OIDC_CLIENT_ID' })
    expect(view.defaultRootRoleId).toBe(3)
    expect('secret' in settingsView(OIDC_DEFAULTS, {})).toBe(false)
    expect(JSON.stringify(settingsAudit({ secret: 's3cret', clientId: 'x' }))).not.toContain('s3cret')
  })

  it('a save keeps the secret when it is absent or the mask, and takes Unleash\'s role id', () => {
    expect(changedFields({ secret: SECRET_MASK, clientId: 'c' }, {})).toEqual({ clientId: 'c' })
    expect(changedFields({ defaultRootRoleId: 2, defaultRootRole: 'Admin' }, {})).toEqual({ defaultRootRole: 'Editor' })
    expect(() => changedFields({ defaultRootRoleId: 5 }, {})).toThrowError(/defaultRootRoleId 5/)
  })

  it('a fixed field may be sent with its value only: another value is a 409 naming the variable', () => {
    expect(changedFields({ clientId: 'fixed', autoCreate: true }, { clientId: 'fixed' })).toEqual({ autoCreate: true })
    expect(() => changedFields({ clientId: 'other' }, { clientId: 'fixed' })).toThrowError(/clientId is set by the environment variable OIDC_CLIENT_ID/)
    expect(() => changedFields({ secret: 'other' }, { secret: 'fixed' })).toThrowError(/OIDC_CLIENT_SECRET/)
    expect(changedFields({ secret: SECRET_MASK }, { secret: 'fixed' })).toEqual({})
  })

  it('name every problem, each at its field', () => {
    expect(settingsProblems(enabled, {})).toEqual([])
    const problems = settingsProblems({ ...OIDC_DEFAULTS, enabled: true, emailDomains: 'example.com, not a domain, @x', acrValues: 'a  b', groupJsonPath: 'a..b', enableGroupSyncing: true }, {})
    expect(problems.map((p) => p.path)).toEqual(['/body/emailDomains', '/body/acrValues', '/body/groupJsonPath', '/body/discoverUrl', '/body/clientId', '/body/secret'])
    expect(settingsProblems({ ...enabled, discoverUrl: 'ftp://idp.example.com' }, {})[0]!.message).toBe('discoverUrl must be an http:// or https:// URL')
    expect(settingsProblems({ ...enabled, discoverUrl: 'https://user:pw@idp.example.com' }, {})).toHaveLength(1)
    expect(settingsProblems({ ...enabled, secret: '', enablePkce: true }, {})).toEqual([])
    expect(settingsProblems({ ...enabled, enableGroupSyncing: true }, {})[0]!.message).toMatch(/groupJsonPath is required/)
  })

  it('a bad value the environment fixes is named by its variable at start-up', () => {
    expect(fixedSettingsProblems({ groupJsonPath: 'a..b', clientId: 'x' })).toEqual([expect.stringMatching(/^OIDC_GROUP_JSON_PATH: groupJsonPath \(from OIDC_GROUP_JSON_PATH\) cannot be read/)])
    expect(fixedSettingsProblems({ enabled: true })).toEqual([])
  })

  it('email domains: exact domains, without case; none allows every domain', () => {
    expect(domainAllowed('ada@Example.COM', ['example.com'])).toBe(true)
    expect(domainAllowed('ada@sub.example.com', ['example.com'])).toBe(false)
    expect(domainAllowed('ada@example.com.evil', ['example.com'])).toBe(false)
    expect(domainAllowed('ada@evil.example', [])).toBe(true)
  })
})

describe('a browser whose sign-in did not complete', () => {
  it('is told a reason from the fixed list, by the refusal\'s status; faults stay problem bodies', () => {
    expect([502, 400, 401, 403, 429, 404].map(signInProblemOf)).toEqual(['unavailable', 'refused', 'refused', 'not-allowed', 'busy', 'off'])
    expect([500, 503, 409].map(signInProblemOf)).toEqual([undefined, undefined, undefined])
  })

  it('is a navigation when Accept names HTML', () => {
    expect(navigating('text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8')).toBe(true)
    expect(navigating('application/json')).toBe(false)
    expect(navigating('*/*')).toBe(false)
    expect(navigating(undefined)).toBe(false)
  })
})
