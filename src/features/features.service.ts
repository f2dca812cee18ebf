import type { Change } from '../events/events.service.js'
import type { Author } from '../events/events.schemas.js'
import { setEnvironmentEnabled } from './features.store.js'
import type { FeatureEnvironmentRef } from './missing.js'

/**
 * Switches a feature on or off in one environment and records it (feature-environment-enabled
 * or -disabled): the one writer of a feature-environment's `enabled`, for every caller
 * (switching by hand, and switching off when the last active strategy goes). The caller holds
 * the feature-environment's lock and has decided that the state changes.
 */
export async function switchEnvironment ({ trx, record }: Change, ref: FeatureEnvironmentRef, enabled: boolean, createdBy: Author) {
  await setEnvironmentEnabled(trx, ref, enabled)
  record({
    type: enabled ? 'feature-environment-enabled' : 'feature-environment-disabled',
    createdBy,
    project: ref.project,
    featureName: ref.feature,
    environment: ref.environment,
  })
}
