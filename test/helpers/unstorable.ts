/**
 * Requests carrying strings PostgreSQL cannot store (NUL) or that are not valid Unicode (a
 * lone surrogate), one per place a string enters the service. Each must be refused with 400
 * and a `details[].path` naming the field, on PostgreSQL and on the embedded database alike,
 * dry run or not.
 */
export interface UnstorableCase {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH'
  url: string
  body?: unknown
  /** The path the first detail must name. */
  path: string
}

export function unstorableCases (feature: string): UnstorableCase[] {
  const variants = `/api/admin/projects/default/features/${feature}/environments/development/variants`
  const lifecycle = `/api/admin/projects/default/features/${feature}/lifecycle`
  const add = (value: object) => [{ op: 'add', path: '/-', value: { name: 'a', weight: 0, ...value } }]
  return [
    { method: 'POST', url: '/api/admin/projects', body: { id: 'p-nul', name: 'a\u0000b' }, path: '/body/name' },
    { method: 'POST', url: '/api/admin/projects/default/features', body: { name: 'g-nul', description: '\ud800' }, path: '/body/description' },
    { method: 'POST', url: '/api/admin/environments', body: { name: 'e-nul', type: 'x\udfff' }, path: '/body/type' },
    { method: 'POST', url: '/api/admin/api-tokens', body: { tokenName: 'x\u0000' }, path: '/body/tokenName' },
    { method: 'PUT', url: variants, body: [{ name: 'a\u0000', weight: 0 }], path: '/body/0/name' },
    { method: 'PUT', url: `${variants}?dryRun=true`, body: [{ name: 'a', weight: 0, payload: { type: 'string', value: 'x\ud800' } }], path: '/body/0/payload/value' },
    { method: 'PATCH', url: variants, body: add({ stickiness: '\ud800' }), path: '/body/0/value/stickiness' },
    { method: 'PATCH', url: `${variants}?dryRun=true`, body: add({ overrides: [{ contextName: 'userId', values: ['\u0000'] }] }), path: '/body/0/value/overrides/0/values/0' },
    { method: 'PATCH', url: `${variants}?dryRun=true`, body: add({ overrides: [{ contextName: '\ud83d', values: ['x'] }] }), path: '/body/0/value/overrides/0/contextName' },
    { method: 'PATCH', url: variants, body: [{ op: 'add', path: '/-\u0000', value: { name: 'a', weight: 0 } }], path: '/body/0/path' },
    { method: 'POST', url: `${lifecycle}/complete`, body: { status: 'kept', statusValue: '\u0000' }, path: '/body/statusValue' },
    { method: 'POST', url: `${lifecycle}/complete`, body: { status: 'kept', statusValue: 'v\ud800' }, path: '/body/statusValue' },
    { method: 'POST', url: '/api/admin/addons', body: { provider: 'webhook', enabled: false, events: ['feature-created'], description: 'a\u0000', parameters: { url: 'http://127.0.0.1/' } }, path: '/body/description' },
    { method: 'POST', url: '/api/admin/addons', body: { provider: 'webhook', enabled: false, events: ['feature-created'], parameters: { url: 'http://127.0.0.1/', bodyTemplate: '{{event}}\ud800' } }, path: '/body/parameters/bodyTemplate' },
    { method: 'GET', url: '/api/admin/events?type=%00', path: '/query/type' },
    { method: 'GET', url: '/api/admin/events?feature=a%00', path: '/query/feature' },
    { method: 'GET', url: '/api/admin/projects/default/features/a%00b', path: '/params/featureName' },
  ]
}
