import type { ErrorDetail } from '../errors.js'

/** The most origins the frontend API's CORS setting holds. */
export const MAX_ORIGINS = 100

/**
 * Why an origin may not be allowed, or undefined: `*` (any), or an origin exactly as a browser
 * sends it in `Origin` (scheme, host and port when not the default; no path, no trailing
 * slash, lower case), as Unleash checks it. A wildcard inside a name is refused.
 */
export function originProblem (origin: string): string | undefined {
  if (origin === '*') return undefined
  if (origin.includes('*')) return 'must be * alone or an origin without a wildcard'
  try {
    const parsed = new URL(origin)
    if (parsed.origin === origin) return undefined
    return parsed.origin === 'null' ? 'must be an origin such as https://app.example.com' : `must be an origin exactly as a browser sends it (${parsed.origin})`
  } catch {
    return 'must be an origin such as https://app.example.com'
  }
}

/** Every problem of a list of origins, each at its place in the body. */
export const originsProblems = (origins: string[], root = '/body/frontendApiOrigins'): ErrorDetail[] =>
  origins.flatMap((origin, i) => {
    const problem = originProblem(origin)
    return problem === undefined ? [] : [{ path: `${root}/${i}`, message: `${root}/${i} ${problem}` }]
  })
