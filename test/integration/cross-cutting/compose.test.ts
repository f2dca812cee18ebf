/**
 * Writes compose: single write services called with one caller's change run in its one
 * transaction, so that several changes of different kinds commit together, with their events,
 * one move of the state version and their webhook outbox rows, or not at all. An import, a
 * change request or a scheduled change is built this way.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { setFeatureEnabled } from '../../../src/catalog/catalog.service.js'
import { completeFeature } from '../../../src/lifecycle/lifecycle.service.js'
import { writeChange } from '../../../src/events/events.service.js'
import { committedVersion } from '../../../src/events/events.store.js'
import { addStrategy, strategyRules } from '../../../src/strategies/strategies.service.js'
import { replaceVariants } from '../../../src/variants/variants.service.js'
import { auth, createFeature, json, useTestApp } from '../../helpers/app.js'
import { databaseFingerprint, eventsOf } from '../../helpers/state.js'

const t = useTestApp({ WEBHOOK_ALLOWED_NETWORKS: '127.0.0.0/8' })
const COMPOSED_TYPES = ['feature-environment-variants-updated', 'feature-strategy-add', 'feature-environment-enabled', 'feature-completed']

let webhookId: number
beforeAll(async () => {
  // Deliveries stay pending (no dispatcher), so that the outbox rows can be counted and compared.
  await t.app.webhooks.stop()
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/addons',
    headers: auth(),
    payload: { provider: 'webhook', enabled: true, events: COMPOSED_TYPES, parameters: { url: 'http://127.0.0.1:9/hook' } },
  })
  expect(res.statusCode, res.body).toBe(201)
  webhookId = json(res).id
})

const limits = () => ({ maxVariants: t.config.maxVariants, maxBytes: t.config.maxVariantsBytes })
const rules = () => strategyRules(t.config.strategyLimits, t.config.bodyLimit)
const variants = [{ name: 'blue', weight: 0, stickiness: 'userId' }, { name: 'red', weight: 0 }]
/** Who the composed writes are by, as events record it. */
const composer = { name: 'composer' }
const outboxRows = async () =>
  (await t.database.db.selectFrom('webhook_deliveries').select('event_id').where('webhook_id', '=', webhookId).execute()).map((r) => Number(r.event_id))

describe('writes composed in one transaction', () => {
  it('commit together: every write stored, each event recorded once, the version moved once, an outbox row per event', async () => {
    const feature = await createFeature(t.app)
    const ref = { project: 'default', feature, environment: 'development' }
    const version = BigInt(await committedVersion(t.database.db))
    const outboxBefore = await outboxRows()

    await writeChange(t.database.db, async (change) => {
      await replaceVariants(change, ref, variants, limits(), { ifMatch: undefined, dryRun: false, createdBy: composer })
      await addStrategy(change, ref, { name: 'flexibleRollout', parameters: { rollout: '25' } }, rules(), composer)
      await setFeatureEnabled(change, ref, true, composer)
      await completeFeature(change, ref, { status: 'kept', statusValue: 'blue' }, composer)
    })

    // What a reader sees: every write.
    const read = json(await t.app.inject({ url: `/api/admin/projects/default/features/${feature}`, headers: auth() }))
    const development = read.environments.find((e: { name: string }) => e.name === 'development')
    expect(development.enabled).toBe(true)
    expect(development.strategies.map((s: { parameters: Record<string, string> }) => s.parameters.rollout)).toEqual(['25'])
    expect(development.variants.map((v: { name: string, weight: number }) => [v.name, v.weight])).toEqual([['blue', 500], ['red', 500]])
    expect(read.lifecycle.stage).toBe('completed')

    // Its events, in the order the writes made them; switching on added no default strategy
    // (the composed strategy was already there), and the version moved once, at the one commit.
    const events = (await eventsOf(t.database.db, feature)).filter((e) => e.created_by === composer.name)
    expect(events.map((e) => e.type)).toEqual(COMPOSED_TYPES)
    expect(BigInt(await committedVersion(t.database.db))).toBe(version + 1n)

    // One outbox row per event the webhook wants, committed with it.
    const added = (await outboxRows()).filter((id) => !outboxBefore.includes(id))
    expect(added.sort((a, b) => a - b)).toEqual(events.map((e) => Number(e.id)))
  })

  it('or not at all: a refusal in the last write leaves every table, the version and the outbox as they were', async () => {
    const feature = await createFeature(t.app)
    const ref = { project: 'default', feature, environment: 'development' }
    const before = await databaseFingerprint(t.database.db)
    const version = await committedVersion(t.database.db)

    const refused = writeChange(t.database.db, async (change) => {
      await replaceVariants(change, ref, variants, limits(), { ifMatch: undefined, dryRun: false, createdBy: composer })
      await setFeatureEnabled(change, ref, true, composer)
      await addStrategy(change, ref, { name: 'no-such-strategy' }, rules(), composer)
    })
    await expect(refused).rejects.toMatchObject({ name: 'BadDataError', status: 400 })

    expect(await databaseFingerprint(t.database.db)).toEqual(before)
    expect(await committedVersion(t.database.db)).toBe(version)
  })

  it('a write composed after a refused one cannot slip through: the caller sees the refusal, nothing is stored', async () => {
    const feature = await createFeature(t.app)
    const ref = { project: 'default', feature, environment: 'development' }
    const before = await databaseFingerprint(t.database.db)
    const refused = writeChange(t.database.db, async (change) => {
      await replaceVariants(change, ref, [{ name: 'a', weight: 0 }, { name: 'a', weight: 0 }], limits(), { ifMatch: undefined, dryRun: false, createdBy: composer })
      await setFeatureEnabled(change, ref, true, composer)
    })
    await expect(refused).rejects.toMatchObject({ name: 'RuleError' })
    expect(await databaseFingerprint(t.database.db)).toEqual(before)
  })
})
