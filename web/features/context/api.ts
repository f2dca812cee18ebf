import { del, post, put, seg } from '../../api/client'
import { keys } from '../../api/keys'
import type { ContextField } from '../../api/types'
import { type AfterWrite, useWrite } from '../../api/write'

export interface ContextFieldBody { name: string; description: string | null; stickiness: boolean; legalValues: { value: string }[] }

/** Creates a context field, or changes `field` when given. */
export const useSaveContextField = (field: ContextField | null, after?: AfterWrite<ContextFieldBody, unknown>) =>
  useWrite((body: ContextFieldBody) => (field ? put(`/api/admin/context/${seg(field.name)}`, body) : post('/api/admin/context', body)), () => [keys.context], after)

export const useDeleteContextField = (after?: AfterWrite<ContextField, unknown>) =>
  useWrite((f: ContextField) => del(`/api/admin/context/${seg(f.name)}`), () => [keys.context], after)
