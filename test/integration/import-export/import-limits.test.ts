/**
 * One rule: whatever a single route refuses, an import refuses, with the same sentence at the
 * element's place (and validate lists it), storing nothing. The cases walk every MAX_* setting
 * of the limits table in docs/configuration.md, at small values, and limits the routes'
 * schemas hold themselves; a new MAX_* setting fails here until it has a case.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { elementRoutes } from '../../../src/import-export/import-elements.js'
import { auth, expectProblem, json, type TestApp, uniqueName, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint } from '../../helpers/state.js'

const LIMITS = {
  MAX_STRATEGIES: '2',
  MAX_CONSTRAINTS: '3',
  MAX_CONSTRAINT_VALUES: '4',
  MAX_CONSTRAINT_VALUE_LENGTH: '10',
  MAX_REGEX_LENGTH: '20',
  MAX_SEGMENTS_PER_STRATEGY: '2',
  MAX_SEGMENT_VALUES: '6',
  MAX_VARIANTS: '3',
}
const t = useTestApp(LIMITS)

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH'
const send = (app: TestApp, method: Method, url: string, payload?: unknown) =>
  app.app.inject({ method, url, headers: auth(), ...(payload === undefined ? {} : { payload: payload as object }) })
const importing = (data: object) => send(t, 'POST', '/api/admin/features-batch/import', { project: 'default', environment: 'development', data })
const validating = (data: object) => send(t, 'POST', '/api/admin/features-batch/validate', { project: 'default', environment: 'development', data })

// Two features of project default: `base` has no strategy, `full` has MAX_STRATEGIES of them.
const base = uniqueName('base')
const full = uniqueName('full')
const strategiesOf = (feature: string) => `/api/admin/projects/default/features/${feature}/environments/development/strategies`
beforeAll(async () => {
  for (const name of [base, full]) expect((await send(t, 'POST', '/api/admin/projects/default/features', { name })).statusCode).toBe(201)
  for (let i = 0; i < 2; i++) expect((await send(t, 'POST', strategiesOf(full), { name: 'default' })).statusCode).toBe(200)
})

interface Case {
  /** The single route's request that refuses the element. */
  single: { method: Method; url: string; payload: unknown }
  /** Import data that carries the same element. */
  data: object
  /** Where the element is in the import's request. */
  root: string
  /** The element's name, as validate lists it. */
  item: string
  /** Members the export names otherwise than the route's body (a tag's value is its tagValue). */
  renames?: Record<string, string>
}

const strategy = (body: object, feature = base): Case => ({
  single: { method: 'POST', url: strategiesOf(feature), payload: { name: 'default', ...body } },
  data: { features: [{ name: feature }], featureStrategies: [{ name: 'default', featureName: feature, ...body }] },
  root: '/body/data/featureStrategies/0',
  item: feature,
})
const segment = (body: object): Case => {
  const name = uniqueName('over')
  return {
    single: { method: 'POST', url: '/api/admin/segments', payload: { name, ...body } },
    data: { features: [], featureStrategies: [], segments: [{ id: 1, name, ...body }] },
    root: '/body/data/segments/0',
    item: name,
  }
}
const inList = (n: number, value: string) => Array.from({ length: n }, (_, i) => `${value}${i}`)

/** Each MAX_* setting of the limits table: an element one past it. */
const SETTING_CASES: Record<keyof typeof LIMITS, Case> = {
  MAX_STRATEGIES: {
    single: { method: 'POST', url: strategiesOf(full), payload: { name: 'default' } },
    data: { features: [{ name: full }], featureStrategies: [0, 1, 2].map(() => ({ name: 'default', featureName: full })) },
    root: '/body/data/featureStrategies/2',
    item: full,
  },
  MAX_CONSTRAINTS: strategy({ constraints: [0, 1, 2, 3].map(() => ({ contextName: 'userId', operator: 'IN', values: ['a'] })) }),
  MAX_CONSTRAINT_VALUES: strategy({ constraints: [{ contextName: 'userId', operator: 'IN', values: inList(5, 'v') }] }),
  MAX_CONSTRAINT_VALUE_LENGTH: strategy({ constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'.repeat(11)] }] }),
  MAX_REGEX_LENGTH: strategy({ constraints: [{ contextName: 'userId', operator: 'REGEX', value: 'a'.repeat(21) }] }),
  MAX_SEGMENTS_PER_STRATEGY: {
    ...strategy({ segments: [1, 2, 3] }),
    data: {
      features: [{ name: base }],
      featureStrategies: [{ name: 'default', featureName: base, segments: [1, 2, 3] }],
      segments: [1, 2, 3].map((id) => ({ id, name: uniqueName('s'), constraints: [{ contextName: 'userId', operator: 'IN', values: ['a'] }] })),
    },
  },
  MAX_SEGMENT_VALUES: segment({ constraints: [{ contextName: 'userId', operator: 'IN', values: inList(4, 'a') }, { contextName: 'appName', operator: 'IN', values: inList(3, 'b') }] }),
  MAX_VARIANTS: {
    single: { method: 'PUT', url: `/api/admin/projects/default/features/${base}/environments/development/variants`, payload: inList(4, 'v').map((name) => ({ name, weight: 0 })) },
    data: { features: [{ name: base }], featureStrategies: [], featureEnvironments: [{ featureName: base, enabled: false, variants: inList(4, 'v').map((name) => ({ name, weight: 0 })) }] },
    root: '/body/data/featureEnvironments/0/variants',
    item: base,
  },
}

/**
 * MAX_* settings that no element of an import reaches, and why. (MAX_VARIANTS_BYTES is at
 * least BODY_LIMIT + 64 × MAX_VARIANTS, so no single request body reaches it: only a patch's
 * result or an import, whose body may be larger. Its case below checks the import's refusal.)
 */
const NOT_ELEMENT_LIMITS = {
  MAX_PATCH_OPERATIONS: 'an import carries no JSON Patch',
  MAX_VARIANTS_BYTES: 'no single request body reaches it (see its own case)',
}

/** Limits the single routes' schemas and rules hold themselves. */
const SCHEMA_CASES: Record<string, Case> = {
  'a constraint value longer than MAX_CONSTRAINT_VALUE_LENGTH for a single-value operator (a rule, not the schema)': strategy({ constraints: [{ contextName: 'n', operator: 'NUM_EQ', value: '12345678901' }] }),
  'a strategy title of 1001 characters': strategy({ title: 'x'.repeat(1001) }),
  "strategy variants whose fixed weights pass 1000 (a rule of the variants document, placed below the strategy's /variants)": strategy({
    variants: [{ name: 'a', weight: 600, weightType: 'fix' }, { name: 'b', weight: 600, weightType: 'fix' }],
  }),
  'a feature description of 1001 characters': (() => {
    const name = uniqueName('long')
    return {
      single: { method: 'POST', url: '/api/admin/projects/default/features', payload: { name, description: 'x'.repeat(1001) } },
      data: { features: [{ name, description: 'x'.repeat(1001) }], featureStrategies: [] },
      root: '/body/data/features/0',
      item: name,
    } satisfies Case
  })(),
  'a tag value of 51 characters': {
    single: { method: 'POST', url: `/api/admin/features/${base}/tags`, payload: { type: 'simple', value: 'x'.repeat(51) } },
    data: { features: [{ name: base }], featureStrategies: [], featureTags: [{ featureName: base, tagType: 'simple', tagValue: 'x'.repeat(51) }] },
    root: '/body/data/featureTags/0',
    item: base,
    renames: { value: 'tagValue' },
  },
  'a tag type name of one character': {
    single: { method: 'POST', url: '/api/admin/tag-types', payload: { name: 'x' } },
    data: { features: [], featureStrategies: [], tagTypes: [{ name: 'x' }] },
    root: '/body/data/tagTypes/0',
    item: 'x',
  },
  'a context field listing a legal value twice (placed once, not under /data/contextFields/0/ again)': (() => {
    const name = uniqueName('ctx')
    return {
      single: { method: 'POST', url: '/api/admin/context', payload: { name, legalValues: [{ value: 'a' }, { value: 'a' }] } },
      data: { features: [], featureStrategies: [], contextFields: [{ name, legalValues: [{ value: 'a' }, { value: 'a' }] }] },
      root: '/body/data/contextFields/0',
      item: name,
    } satisfies Case
  })(),
  'a dependency on 101 variants': {
    single: { method: 'POST', url: `/api/admin/projects/default/features/${base}/dependencies`, payload: { feature: full, variants: inList(101, 'v') } },
    data: { features: [{ name: base }, { name: full }], featureStrategies: [], dependencies: [{ feature: base, dependencies: [{ feature: full, variants: inList(101, 'v') }] }] },
    root: '/body/data/dependencies/0/dependencies/0',
    item: base,
  },
}

/** A schema as the OpenAPI document shows it: a record's `patternProperties: {"^(.*)$": …}` is written `additionalProperties`. */
const documentedForm = (schema: unknown): unknown => {
  if (Array.isArray(schema)) return schema.map(documentedForm)
  if (typeof schema !== 'object' || schema === null) return schema
  const entries = Object.entries(schema).map(([key, value]) =>
    key === 'patternProperties' && Object.keys(value as object).join() === '^(.*)$' ? ['additionalProperties', (value as Record<string, unknown>)['^(.*)$']] : [key, value])
  return Object.fromEntries(entries.map(([key, value]) => [key, documentedForm(value)]))
}

/** The single route's refusal as the import must word it: its /body replaced by the element's place. */
const placed = (detail: { path: string; message: string }, c: Case) => {
  const move = (text: string) => {
    if (!text.startsWith('/body')) return text
    const rest = text.slice('/body'.length)
    const [member = '', ...tail] = rest.split(/(?=[/ ])/)
    const renamed = c.renames?.[member.slice(1)]
    return c.root + (renamed === undefined ? rest : `/${renamed}${tail.join('')}`)
  }
  return { path: move(detail.path), message: move(detail.message) }
}

describe('an import refuses what a single route refuses, with the same sentence at the element', () => {
  it.each(Object.entries({ ...SETTING_CASES, ...SCHEMA_CASES }))('%s', async (_, c) => {
    const before = await databaseFingerprint(t.database.db)
    const single = expectProblem(await send(t, c.single.method, c.single.url, c.single.payload), 400, 'BadDataError')
    expect(single.details[0].path).toMatch(/^\/body/)
    const expected = placed(single.details[0], c)

    const refused = expectProblem(await importing(c.data), 400, 'BadDataError')
    expect(refused.details[0]).toEqual(expected)
    expect(refused.message).toBe(expected.message)
    expect(await databaseFingerprint(t.database.db)).toEqual(before)

    const validation = await validating(c.data)
    expect(validation.statusCode, validation.body).toBe(200)
    expect(json(validation).errors).toContainEqual({ message: expected.message, affectedItems: [c.item] })
  })

  it('MAX_VARIANTS_BYTES: variants too large to store are refused at the element, nothing stored', async () => {
    const before = await databaseFingerprint(t.database.db)
    const payload = { type: 'string', value: 'x'.repeat(400_000) }
    const data = { features: [{ name: base }], featureStrategies: [], featureEnvironments: [{ featureName: base, enabled: false, variants: inList(3, 'v').map((name) => ({ name, weight: 0, payload })) }] }
    const refused = expectProblem(await importing(data), 400, 'BadDataError')
    expect(refused.details[0]).toEqual({ path: '/body/data/featureEnvironments/0/variants', message: expect.stringMatching(/^The variants would be \d+ bytes, more than the limit of \d+$/) })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(json(await validating(data)).errors).toContainEqual({ message: refused.message, affectedItems: [base] })
  })

  it('walks every MAX_* setting of the limits table in docs/configuration.md', () => {
    const table = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8')
    const documented = [...table.matchAll(/^\| `(MAX_[A-Z_]+)` \|/gm)].map((m) => m[1]!)
    expect(documented.length).toBeGreaterThan(5)
    expect(documented.sort()).toEqual([...Object.keys(SETTING_CASES), ...Object.keys(NOT_ELEMENT_LIMITS)].sort())
  })

  it('checks each element with the body schema its single route documents (the same schema, not a copy)', async () => {
    const doc = JSON.parse((await t.app.inject({ url: '/docs/json' })).body) as { paths: Record<string, Record<string, { requestBody: { content: Record<string, { schema: unknown }> } }>> }
    for (const [element, { route, schema }] of Object.entries(elementRoutes(t.config))) {
      const [method, path] = route.split(' ') as [string, string]
      const documented = doc.paths[path]?.[method.toLowerCase()]?.requestBody.content['application/json']?.schema
      expect(documented, `${element}: ${route}`).toEqual(documentedForm(JSON.parse(JSON.stringify(schema))))
    }
  })
})

describe('what only an import can get wrong', () => {
  const constraint = (value: string) => [{ contextName: 'userId', operator: 'IN', values: [value] }]

  it('two segments of one name with other constraints: validate lists it, import refuses naming the second, nothing stored', async () => {
    const name = uniqueName('seg')
    const feature = uniqueName('f')
    const data = {
      features: [{ name: feature }],
      featureStrategies: [{ name: 'default', featureName: feature, segments: [1] }, { name: 'flexibleRollout', featureName: feature, segments: [2] }],
      segments: [{ id: 1, name, constraints: constraint('a') }, { id: 2, name, constraints: constraint('b') }],
    }
    const message = `/body/data/segments/1 is named ${name}, as /body/data/segments/0 is, with other constraints: a segment is known by its name, so strategies of both would use one of them`
    expect(json(await validating(data)).errors).toEqual([{ message, affectedItems: [name] }])
    const before = await databaseFingerprint(t.database.db)
    expect(expectProblem(await importing(data), 400, 'BadDataError').details).toEqual([{ path: '/body/data/segments/1', message }])
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    // The same segment twice (an export of two strategies using it lists it once, but a merged file may list it twice) is one segment.
    const same = { ...data, segments: [{ id: 1, name, constraints: constraint('a') }, { id: 2, name, constraints: constraint('a') }] }
    expect(json(await validating(same)).errors).toEqual([])
    expect((await importing(same)).statusCode).toBe(200)
    const [one, two] = json(await send(t, 'GET', strategiesOf(feature)))
    expect(one.segments).toEqual(two.segments)
    expect(one.segments).toHaveLength(1)
  })

  it("a feature's environment state, or its dependencies, listed twice: refused naming the second, nothing stored", async () => {
    const feature = uniqueName('twice')
    const parent = uniqueName('parent')
    const cases = [
      {
        data: { features: [{ name: feature }], featureStrategies: [], featureEnvironments: [{ featureName: feature, enabled: false }, { featureName: feature, enabled: true }] },
        detail: { path: '/body/data/featureEnvironments/1', message: `/body/data/featureEnvironments/1 lists feature ${feature} a second time (/body/data/featureEnvironments/0 lists it first): a feature has one state in the environment` },
      },
      {
        data: { features: [{ name: feature }, { name: parent }], featureStrategies: [], dependencies: [{ feature, dependencies: [{ feature: parent }] }, { feature, dependencies: [] }] },
        detail: { path: '/body/data/dependencies/1', message: `/body/data/dependencies/1 lists the dependencies of ${feature} a second time (/body/data/dependencies/0 lists them first)` },
      },
    ]
    for (const { data, detail } of cases) {
      expect(json(await validating(data)).errors).toEqual([{ message: detail.message, affectedItems: [feature] }])
      const before = await databaseFingerprint(t.database.db)
      expect(expectProblem(await importing(data), 400, 'BadDataError').details).toEqual([detail])
      expect(await databaseFingerprint(t.database.db)).toEqual(before)
    }
  })

  it('replacing MAX_STRATEGIES strategies with as many others: only the final count is held to the limit, and the feature is never off', async () => {
    const feature = uniqueName('swap')
    expect((await send(t, 'POST', '/api/admin/projects/default/features', { name: feature })).statusCode).toBe(201)
    for (const name of ['default', 'flexibleRollout']) expect((await send(t, 'POST', strategiesOf(feature), { name })).statusCode).toBe(200)
    expect((await send(t, 'POST', `/api/admin/projects/default/features/${feature}/environments/development/on`)).statusCode).toBe(200)
    const lastEvent = Number(json(await send(t, 'GET', `/api/admin/events?feature=${feature}`)).events[0].id)
    const wanted = [{ name: 'userWithId', parameters: { userIds: 'a' } }, { name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } }]
    const data = { features: [{ name: feature }], featureStrategies: wanted.map((w) => ({ ...w, featureName: feature })), featureEnvironments: [{ featureName: feature, enabled: true }] }
    const imported = await importing(data)
    expect(imported.statusCode, imported.body).toBe(200)
    expect(json(await send(t, 'GET', strategiesOf(feature))).map((s: { name: string }) => s.name)).toEqual(['userWithId', 'remoteAddress'])
    const events = json(await send(t, 'GET', `/api/admin/events?feature=${feature}`)).events.filter((e: { id: number }) => e.id > lastEvent)
    expect(events.map((e: { type: string }) => e.type).reverse()).toEqual(['feature-strategy-add', 'feature-strategy-add', 'feature-strategy-remove', 'feature-strategy-remove'])
  })

  it('validate lists each refused element once, at most 100 of them, and counts the rest', async () => {
    const feature = uniqueName('many')
    const data = { features: [{ name: feature }], featureStrategies: Array.from({ length: 103 }, () => ({ name: 'default', featureName: feature, title: 'x'.repeat(1001) })) }
    const { errors } = json(await validating(data))
    // MAX_STRATEGIES (2) is refused at the third strategy as well as its title.
    expect(errors).toHaveLength(101)
    expect(errors[0]).toEqual({ message: '/body/data/featureStrategies/0/title must NOT have more than 1000 characters', affectedItems: [feature] })
    expect(errors[100]).toEqual({ message: '4 more elements would be refused as well', affectedItems: [] })
  })
})
