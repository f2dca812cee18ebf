import { badData, invalidField, notFound } from '../errors.js'
import { readerOf, withChange, type Writer } from '../events/events.service.js'
import { type Author, type JsonText, toJsonText } from '../events/events.schemas.js'
import { lockFeaturesByName, requirePresent } from '../features/features.store.js'
import { segmentsById } from '../segments/segments.store.js'
import { findDefinition } from '../strategies/definitions.store.js'
import type { NewStrategy, StrategyLimits } from '../strategies/strategies.schemas.js'
import { resolveStrategy, strategyInput } from '../strategies/strategy-rules.js'
import {
  addProjectEnvironment,
  featureNamesOf,
  lockDefaultStrategy,
  lockProjectRow,
  removeProjectEnvironment,
  setDefaultStrategy,
} from './project-environments.store.js'

/** Enables an environment in a project (project-environment-added); enabling it again changes nothing. */
export async function enableEnvironment (writer: Writer, project: string, environment: string, createdBy: Author) {
  // Projects and environments are never removed: checked once, they stay there.
  await requirePresent(readerOf(writer), { project, environment }, false)
  await withChange(writer, async ({ trx, record }) => {
    if (await addProjectEnvironment(trx, project, environment)) {
      record({ type: 'project-environment-added', createdBy, project, environment, data: toJsonText({ environment }) })
    }
  })
}

/**
 * Takes an environment out of a project (project-environment-removed): the project's
 * features lose their feature-environment there, with its strategies and variants, and the
 * project's default strategy there goes too. As Unleash, the last environment may go, and one
 * that is not enabled there changes nothing (200, no event); a project or an environment that
 * does not exist is a 404 naming it.
 */
export async function removeEnvironment (writer: Writer, project: string, environment: string, createdBy: Author) {
  await requirePresent(readerOf(writer), { project, environment }, false)
  await withChange(writer, async ({ trx, record }) => {
    // Every writer of a feature locks it first: so does this one, in name order. Then the
    // project's row, so that no feature is created meanwhile; one created before that lock is
    // locked too.
    const locked = await featureNamesOf(trx, project)
    await lockFeaturesByName(trx, locked)
    await lockProjectRow(trx, project)
    const before = new Set(locked)
    await lockFeaturesByName(trx, (await featureNamesOf(trx, project)).filter((name) => !before.has(name)))
    if (await removeProjectEnvironment(trx, project, environment)) {
      record({ type: 'project-environment-removed', createdBy, project, environment })
    }
  })
}

/**
 * Sets the project's default strategy in an environment: what a feature of the project gets
 * when it is switched on there with no active strategy (default-strategy-updated with data and
 * preData; the same strategy again changes nothing). As Unleash, only a flexibleRollout; its
 * rules are a new strategy's (parameters, constraints, variants, segments of this project or
 * of none). Without a groupId, each feature gets its own name as the groupId.
 */
export function setProjectDefaultStrategy (
  writer: Writer,
  target: { project: string; environment: string },
  body: NewStrategy,
  limits: StrategyLimits,
  createdBy: Author
) {
  const { project, environment } = target
  if (body.name !== 'flexibleRollout') {
    const sentence = 'Only "flexibleRollout" strategy can be used as a default strategy for an environment'
    throw badData(sentence, [{ path: '/body/name', message: sentence }])
  }
  if (body.disabled === true) {
    throw invalidField('/body/disabled', 'must be false: a feature switched on with a disabled default strategy would be on for no one')
  }
  return withChange(writer, async ({ trx, record }) => {
    let current = await lockDefaultStrategy(trx, project, environment)
    if (current === undefined) {
      await requirePresent(trx, { project, environment })
      // Enabled there meanwhile: lock it now.
      current = await lockDefaultStrategy(trx, project, environment)
      if (current === undefined) throw notFound(`Environment ${environment} is not enabled in project ${project}`)
    }
    const definition = await findDefinition(trx, body.name)
    if (!definition) throw invalidField('/body/name', `names no strategy definition: ${body.name}`)
    // Checked as a feature's strategy would be; a groupId left out stays out (each feature then uses its name).
    const resolved = resolveStrategy(strategyInput(body, 0), definition, 'each-feature', limits)
    const { groupId: _placeholder, ...parameters } = resolved.parameters
    const groupId = body.parameters?.groupId
    const strategy = groupId !== undefined && String(groupId) !== '' ? resolved : { ...resolved, parameters }
    const found = new Map((await segmentsById(trx, strategy.segments)).map((s) => [s.id, s]))
    ;(body.segments ?? []).forEach((id, i) => {
      const segment = found.get(id)
      if (!segment) throw invalidField(`/body/segments/${i}`, `names no segment: ${id}`)
      if (segment.project !== null && segment.project !== project) {
        throw invalidField(`/body/segments/${i}`, `names segment ${segment.name} of project ${segment.project}, which only strategies of that project may use`)
      }
    })
    const text = toJsonText(strategy)
    if (text !== current) {
      await setDefaultStrategy(trx, project, environment, text)
      record({ type: 'default-strategy-updated', createdBy, project, environment, data: text, ...(current !== null && { preData: current as JsonText }) })
    }
    return strategy
  })
}
