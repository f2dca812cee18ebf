/**
 * Where the provider's group names are in an ID token (`groupJsonPath`), read without
 * evaluating anything: a path of member names and array indexes, JSONPath-like (`$.groups`,
 * `$.realm_access.roles`, `$['https://example.com/groups']`, `$.teams[0]`) or dotted
 * (`realm_access.roles`). Bounded: a path of at most 200 characters and 10 steps; at most 1000
 * names of at most 256 characters each are taken.
 */

type Step = string | number

const MAX_PATH_LENGTH = 200
const MAX_STEPS = 10
export const MAX_GROUP_NAMES = 1000
export const MAX_GROUP_NAME_LENGTH = 256

/** A bare member name: anything but dots, brackets, quotes and white space. */
const NAME = /^[^.[\]'"\s]+/
const QUOTED = /^\[(?:'([^'\\]*)'|"([^"\\]*)")\]/
const INDEX = /^\[(0|[1-9][0-9]{0,5})\]/

/** The steps of a path, or why it cannot be read. */
export function parseGroupPath (path: string): Step[] | string {
  if (path.length > MAX_PATH_LENGTH) return `must be at most ${MAX_PATH_LENGTH} characters`
  if (path === '' || path === '$') return 'must name at least one member'
  let rest = path.startsWith('$') ? path.slice(1) : `.${path}`
  const steps: Step[] = []
  while (rest.length > 0) {
    let m: RegExpExecArray | null
    if (rest.startsWith('.') && (m = NAME.exec(rest.slice(1)))) {
      steps.push(m[0])
      rest = rest.slice(1 + m[0].length)
    } else if ((m = QUOTED.exec(rest))) {
      steps.push(m[1] ?? m[2]!)
      rest = rest.slice(m[0].length)
    } else if ((m = INDEX.exec(rest))) {
      steps.push(Number(m[1]))
      rest = rest.slice(m[0].length)
    } else {
      return `cannot be read at "${rest.slice(0, 20)}": use member names (groups, realm_access.roles, $.groups, $['a.b']) and array indexes ([0])`
    }
    if (steps.length > MAX_STEPS) return `must have at most ${MAX_STEPS} steps`
  }
  return steps.length === 0 ? 'must name at least one member' : steps
}

/** Why a path cannot be read, or undefined when it can. */
export const groupPathProblem = (path: string) => {
  const parsed = parseGroupPath(path)
  return typeof parsed === 'string' ? parsed : undefined
}

/**
 * The group names at `path` in `claims`: an array's strings (other members are skipped), or
 * one string; nothing when the path leads nowhere or to something else. Own members only, so
 * that `__proto__` or `constructor` find nothing.
 */
export function groupsAt (claims: unknown, path: string): string[] {
  const steps = parseGroupPath(path)
  if (typeof steps === 'string') return []
  let at: unknown = claims
  for (const step of steps) {
    if (typeof step === 'number') {
      at = Array.isArray(at) && step < at.length ? at[step] : undefined
    } else {
      at = at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, step) ? (at as Record<string, unknown>)[step] : undefined
    }
    if (at === undefined) return []
  }
  const names = typeof at === 'string' ? [at] : Array.isArray(at) ? at : []
  const kept = names.filter((n): n is string => typeof n === 'string' && n.length > 0 && n.length <= MAX_GROUP_NAME_LENGTH)
  return [...new Set(kept)].slice(0, MAX_GROUP_NAMES)
}
