/**
 * The feature types, in Unleash's order. The server accepts exactly these; the UI offers them.
 * This folder is the vocabulary both src/ and web/ import: no dependencies, no I/O.
 */
export const FEATURE_TYPES = ['release', 'experiment', 'operational', 'kill-switch', 'permission', 'sunset'] as const
export type FeatureTypeId = (typeof FEATURE_TYPES)[number]
