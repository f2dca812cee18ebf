import { useMutation } from '@tanstack/react-query'
import { post } from '../../api/client'
import { keys } from '../../api/keys'
import type { Export, Validation } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface Target { project: string; environment: string }

/** An export is a read sent as a POST: nothing changes, nothing is read again. */
export const useExport = (after: { onSuccess: (data: Export, target: Target) => void }) =>
  useMutation({ mutationFn: (target: Target) => post<Export>('/api/admin/features-batch/export', target), onSuccess: after.onSuccess })

/** Validation only reads too: what an import of `data` would do, and what would stop it. */
export const useValidateImport = () =>
  useMutation({ mutationFn: ({ data, ...target }: Target & { data: unknown }) => post<Validation>('/api/admin/features-batch/validate', { ...target, data }) })

/**
 * An import writes the project's flags (their strategies, variants, tags, dependencies and state
 * in the environment), and the segments, context fields and tag types they use.
 */
export const useImport = (after?: AfterWrite<Target & { data: unknown }, unknown>) =>
  useWrite(
    ({ data, ...target }: Target & { data: unknown }) => post('/api/admin/features-batch/import', { ...target, data }),
    ({ project }) => [keys.flags(project), keys.projectFlags(project), keys.tags(), keys.segments, keys.context, keys.tagTypes],
    after
  )
