import { useContextFields } from '../../api/reads'
import type { ContextField } from '../../api/types'
import { FormDialog } from '../../components/dialog'
import { EditableTable } from '../../components/editable-table'
import { errorsAt } from '../../components/feedback'
import { Check, TextArea, TextField } from '../../components/form'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { useFields } from '../../lib/fields'
import { lines } from '../../lib/lists'
import { useSession } from '../../lib/session'
import { useDeleteContextField, useSaveContextField } from './api'

/** Every context field, with its legal values and how many flags use it; an Editor may change them. */
export function ContextFieldList () {
  const session = useSession()
  const announce = useAnnounce()
  const fields = useContextFields()
  const remove = useDeleteContextField({ onSuccess: (_d, f) => announce(`Context field ${f.name} deleted`) })
  return (
    <EditableTable
      query={fields} what='Loading context fields'
      rowKey={(f) => f.name}
      rowHeader={{ label: 'Name', cell: (f) => f.name, detail: (f) => f.description }}
      columns={[
        { label: 'Legal values', cell: (f) => (f.legalValues.length ? f.legalValues.map((v) => v.value).join(', ') : 'Any value') },
        { label: 'Stickiness', cell: (f) => (f.stickiness ? 'Yes' : 'No') },
        { label: 'Used by', cell: (f) => `${f.usedInFeatures} flags` },
      ]}
      mayChange={session.can('change-flags')}
      name={(f) => f.name}
      edit={(f, close) => <ContextDialog field={f} onClose={close} />}
      remove={{
        write: remove,
        title: (f) => `Delete context field ${f.name}?`,
        body: () => <p>Constraints that read it keep working; they just can no longer be offered its legal values.</p>,
      }}
    />
  )
}

/** A new context field (`field` null), or changes to one. */
export function ContextDialog ({ field, onClose }: { field: ContextField | null; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const form = useFields({
    name: field?.name ?? '',
    description: field?.description ?? '',
    stickiness: field?.stickiness ?? false,
    legalValues: (field?.legalValues ?? []).map((v) => v.value).join('\n'),
  })
  const { name, description, stickiness, legalValues } = form.values
  const save = useSaveContextField(field, done(() => `Context field ${name} saved`))
  const submit = () => save.mutate({ name, description: description || null, stickiness, legalValues: lines(legalValues).map((value) => ({ value })) })
  return (
    <FormDialog title={field ? `Edit context field ${field.name}` : 'New context field'} onClose={onClose} onSubmit={submit} write={save} shownAt={['/name', '/description', '/legalValues']}>
      <TextField label='Name' {...form.field('name')} required disabled={field !== null} errors={errorsAt(save.error, '/name')} />
      <TextArea label='Description' {...form.field('description')} errors={errorsAt(save.error, '/description')} />
      <TextArea label='Legal values' {...form.field('legalValues')} rows={4} hint='One value per line; empty: any value' errors={errorsAt(save.error, '/legalValues')} />
      <Check label='Can be used for stickiness' checked={stickiness} onChange={(on) => form.set({ stickiness: on })} />
    </FormDialog>
  )
}
