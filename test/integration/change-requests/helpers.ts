/**
 * What the change request tests share: a project of their own with development and production,
 * two people who may write (an author and a reviewer), a Viewer, and the admin token.
 */
import { type TestApp, uniqueName } from '../../helpers/app.js'
import { type Browser, signedIn } from '../../helpers/people.js'
import { requests } from '../../helpers/requests.js'

export interface Person { id: number; login: string; browser: Browser }

/** A browser's JSON answer: status and body. */
export async function call (who: Person | Browser, method: string, path: string, body?: unknown) {
  const browser = 'browser' in who ? who.browser : who
  const res = await browser.json(method, path, body)
  const text = await res.text()
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) as any, headers: res.headers }
}

export function changeRequestKit (t: TestApp) {
  const { admin } = requests(t)
  return {
    admin,
    /** A new project with development and production enabled; production guarded (approvals: `approvals`). */
    async project (approvals = 1, guarded = ['production']) {
      const id = uniqueName('p')
      await admin.post('/api/admin/projects', { id, name: id })
      for (const environment of ['development', 'production']) await admin.post(`/api/admin/projects/${id}/environments`, { environment })
      for (const environment of guarded) {
        const res = await admin.put(`/api/admin/projects/${id}/environments/${environment}/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: approvals })
        if (res.statusCode !== 200) throw new Error(`config refused: ${res.body}`)
      }
      return id
    },
    async feature (project: string, name = uniqueName('f')) {
      const res = await admin.post(`/api/admin/projects/${project}/features`, { name })
      if (res.statusCode !== 201) throw new Error(`feature not created: ${res.body}`)
      return name
    },
    person: (base: string, role: 'Admin' | 'Editor' | 'Viewer') => signedIn(t, base, role),
  }
}

export const crUrl = (project: string, rest = '') => `/api/admin/projects/${project}/change-requests${rest}`
export const addUrl = (project: string, environment = 'production') => `/api/admin/projects/${project}/environments/${environment}/change-requests`

/** Asserts a browser's answer is this refusal (the problem body); returns the body. */
export function refused (res: { status: number; body: any; headers: Headers }, status: number, name: string) {
  if (res.status !== status || res.body?.name !== name) throw new Error(`expected ${status} ${name}, got ${res.status} ${JSON.stringify(res.body)}`)
  if (!String(res.headers.get('content-type')).startsWith('application/problem+json')) throw new Error(`expected a problem body, got ${res.headers.get('content-type')}`)
  return res.body
}
