// The UI is one more client of the public admin API: same origin, the session cookie, JSON.

/** One problem the API reported, with where in the request it was when it says so. */
export interface ProblemDetail {
  message: string
  path?: string
}

/** An answer other than 2xx, or no answer at all (status 0). */
export class ApiProblem extends Error {
  constructor (
    readonly status: number,
    readonly errorName: string,
    message: string,
    readonly details: ProblemDetail[] = [],
    /** The answer's body as sent (a 401's sign-in options are there). */
    readonly body: unknown = undefined
  ) {
    super(message)
  }

  /** The messages whose path is this field (a JSON Pointer into the body, without /body). */
  at (field: string): string[] {
    return this.details.filter((d) => d.path !== undefined && stripBody(d.path) === field).map((d) => d.message)
  }

  /** The messages whose path is at or under this prefix (a constraint, a variant). */
  under (prefix: string): string[] {
    return this.details.filter((d) => d.path !== undefined && (stripBody(d.path) === prefix || stripBody(d.path).startsWith(`${prefix}/`))).map((d) => d.message)
  }

  /** The messages not shown at any field that `fields` lists (or inside one of them). */
  elsewhere (fields: string[]): ProblemDetail[] {
    const shown = (path: string) => fields.some((f) => path === f || path.startsWith(`${f}/`))
    return this.details.filter((d) => d.path === undefined || !shown(stripBody(d.path)))
  }
}

const stripBody = (path: string) => path.replace(/^\/body/, '')

export interface Answer<T> {
  data: T
  etag: string | null
  status: number
}

/** Words a person understands for a status the API answered with, when it said nothing better. */
function fallbackMessage (status: number): string {
  if (status === 401) return 'You are signed out. Sign in again to continue.'
  if (status === 403) return 'Your role does not allow this.'
  if (status === 404) return 'This does not exist (any more).'
  if (status === 409) return 'This conflicts with what is stored now.'
  if (status === 412) return 'Someone else changed this meanwhile.'
  if (status === 413) return 'This is too large to send.'
  if (status === 429) return 'The server is busy; try again in a moment.'
  if (status === 503) return 'The server cannot reach its database; try again in a moment.'
  return `The server answered ${status}.`
}

/** Calls the API; resolves on 2xx, throws ApiProblem otherwise. */
export async function request<T = unknown> (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
  let res: Response
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    throw new ApiProblem(0, 'NetworkError', 'The server cannot be reached. Check your connection and try again.')
  }
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  if (!res.ok) {
    const problem = (parsed ?? {}) as { name?: string; message?: string; detail?: string; details?: ProblemDetail[] }
    const details = Array.isArray(problem.details) ? problem.details : []
    throw new ApiProblem(res.status, problem.name ?? 'Error', problem.message ?? problem.detail ?? fallbackMessage(res.status), details, parsed)
  }
  return { data: parsed as T, etag: res.headers.get('etag'), status: res.status }
}

export const get = async <T>(path: string) => (await request<T>('GET', path)).data
export const post = async <T = unknown>(path: string, body?: unknown) => (await request<T>('POST', path, body)).data
export const put = async <T = unknown>(path: string, body?: unknown) => (await request<T>('PUT', path, body)).data
export const del = async <T = unknown>(path: string) => (await request<T>('DELETE', path)).data

/** Path segments are URL-friendly names already; encoding keeps a stray one from escaping. */
export const seg = (value: string) => encodeURIComponent(value)

/** A flag's admin API address. */
export const flagPath = ({ project, name }: { project: string; name: string }) => `/api/admin/projects/${seg(project)}/features/${seg(name)}`

/** A message for any thrown value. */
export function messageOf (error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}
