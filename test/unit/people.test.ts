import { describe, expect, it } from 'vitest'
import { isCrossSite } from '../../src/auth/csrf.js'
import { sessionIdFromCookie } from '../../src/users/session-cookie.js'
import { accountKey, addressKey } from '../../src/users/login-limits.js'
import { PasswordHasher } from '../../src/users/password-hash.js'
import { passwordProblem } from '../../src/users/passwords.js'
import { type Person, permissionsOf, personMay, type RouteRole } from '../../src/users/roles.js'

const person = (rootRole: Person['rootRole'], projectRoles: Person['projectRoles'] = {}): Person =>
  ({ id: 1, username: 'u', email: null, name: null, rootRole, projectRoles })

describe('personMay', () => {
  const cases: [Person, RouteRole, string | undefined, boolean][] = [
    [person('Viewer'), 'viewer', undefined, true],
    [person('Viewer'), 'self', undefined, true],
    [person('Viewer'), 'editor', 'default', false],
    [person('Viewer', { default: 'Member' }), 'editor', 'default', true],
    [person('Viewer', { default: 'Member' }), 'editor', 'other', false],
    [person('Viewer', { default: 'Member' }), 'editor', undefined, false],
    [person('Viewer', { default: 'Member' }), 'admin', 'default', false],
    [person('Editor'), 'editor', undefined, true],
    [person('Editor'), 'editor', 'any', true],
    [person('Editor'), 'admin', undefined, false],
    [person('Admin'), 'admin', undefined, true],
    [person('Admin'), 'editor', 'x', true],
  ]
  it.each(cases)('%j asking %s in %s: %s', (p, role, project, expected) => {
    expect(personMay(p, role, project)).toBe(expected)
  })
})

describe('permissionsOf', () => {
  it('is ADMIN for an Admin, nothing for a Viewer, the project for a Member, * for an Editor', () => {
    expect(permissionsOf(person('Admin'))).toEqual([{ permission: 'ADMIN' }])
    expect(permissionsOf(person('Viewer'))).toEqual([])
    const member = permissionsOf(person('Viewer', { p1: 'Member' }))
    expect(member).toContainEqual({ permission: 'CREATE_FEATURE', project: 'p1' })
    expect(member).toContainEqual({ permission: 'UPDATE_FEATURE_ENVIRONMENT', project: 'p1', environment: '*' })
    expect(member.every((p) => p.project === 'p1')).toBe(true)
    expect(permissionsOf(person('Editor'))).toContainEqual({ permission: 'CREATE_FEATURE', project: '*' })
  })
})

describe('passwordProblem', () => {
  it.each([
    ['short', /at least 10/],
    ['password1234', /common/],
    ['PASSWORD1234', /common/],
    ['1234567890', /common/],
    ['x'.repeat(1025), /at most 1024/],
  ])('refuses %s', (password, rule) => {
    expect(passwordProblem(password)).toMatch(rule)
  })
  it('counts code points, refuses the username or email, accepts a good one', () => {
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑')).toMatch(/at least 10/)
    expect(passwordProblem('🔑🔑🔑🔑🔑🔑🔑🔑🔑🔑')).toBeUndefined()
    expect(passwordProblem('Some-Long-Name', { username: 'some-long-name' })).toMatch(/username or email/)
    expect(passwordProblem('correct-horse-battery-7')).toBeUndefined()
  })
})

describe('isCrossSite', () => {
  const host = 'flags.example.com'
  it.each([
    ['GET', { 'sec-fetch-site': 'cross-site' }, false],
    ['POST', {}, false],
    ['POST', { 'sec-fetch-site': 'same-origin' }, false],
    ['POST', { 'sec-fetch-site': 'none' }, false],
    ['POST', { 'sec-fetch-site': 'same-site' }, true],
    ['POST', { 'sec-fetch-site': 'cross-site', origin: 'https://flags.example.com' }, true],
    ['DELETE', { origin: 'https://flags.example.com' }, false],
    ['DELETE', { origin: 'https://FLAGS.example.com' }, false],
    ['PUT', { origin: 'https://evil.example.com' }, true],
    ['PATCH', { origin: 'null' }, true],
    ['POST', { origin: 'not a url' }, true],
  ] as const)('%s with %j: %s', (method, headers, expected) => {
    expect(isCrossSite(method, headers, host)).toBe(expected)
  })
})

describe('login limit keys', () => {
  it('an account by its name without case or spaces; an IPv6 address by its /64; IPv4-mapped as IPv4', () => {
    expect(accountKey(' Alice ')).toEqual(accountKey('alice'))
    expect(accountKey('alice').key).not.toContain('alice')
    expect(addressKey('2001:db8::1')).toEqual(addressKey('2001:db8::ffff:1'))
    expect(addressKey('2001:db8::1')).not.toEqual(addressKey('2001:db8:0:1::1'))
    expect(addressKey('::ffff:10.0.0.1')).toEqual(addressKey('10.0.0.1'))
    expect(addressKey('10.0.0.1')).not.toEqual(addressKey('10.0.0.2'))
  })
})

describe('the session cookie', () => {
  it('reads only a value shaped like a session id', () => {
    const id = 'a'.repeat(43)
    expect(sessionIdFromCookie(`x=1; unleash-session=${id}`)).toBe(id)
    expect(sessionIdFromCookie('unleash-session=short')).toBeUndefined()
    expect(sessionIdFromCookie(undefined)).toBeUndefined()
  })
})

describe('PasswordHasher', () => {
  it('verifies what it hashed, refuses others, and flags a hash of another cost for rehashing', async () => {
    const hasher = new PasswordHasher(12)
    const stored = await hasher.hash('correct-horse-battery-7')
    expect(stored).toMatch(/^\$scrypt\$ln=12,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/)
    expect(await hasher.verify('correct-horse-battery-7', stored)).toEqual({ ok: true, rehash: false })
    expect(await hasher.verify('correct-horse-battery-8', stored)).toEqual({ ok: false, rehash: false })
    expect(await hasher.verify('anything', null)).toEqual({ ok: false, rehash: false })
    expect(await new PasswordHasher(13).verify('correct-horse-battery-7', stored)).toEqual({ ok: true, rehash: true })
  })
})
