import { useState } from 'react'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { SelectField, submitting, TextField } from '../../components/form'
import { RowButton } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { tagLabel } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useAddTag, useFlagTags, useRemoveTag, useTagTypes } from './api'

/** The tags of a flag (type:value), added and removed on the spot. */
export function Tags ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const tags = useFlagTags(feature)
  const announce = useAnnounce()
  const remove = useRemoveTag(feature, { onSuccess: (_d, t) => announce(`Tag ${tagLabel(t)} removed`) })
  return (
    <section aria-labelledby='tags-heading'>
      <h2 id='tags-heading'>Tags</h2>
      <ErrorAlert error={tags.error ?? remove.error} />
      {tags.data?.length === 0 && <p className='muted'>No tags.</p>}
      {tags.data && tags.data.length > 0 && (
        <ul className='tags' aria-label={`Tags of ${feature.name}`}>
          {tags.data.map((t) => (
            <li key={tagLabel(t)}>
              <span className='badge tag'>{tagLabel(t)}</span>
              {canChange && (
                <RowButton onClick={() => remove.mutate(t)} what={`tag ${tagLabel(t)}`} disabled={remove.isPending}>Remove</RowButton>
              )}
            </li>
          ))}
        </ul>
      )}
      {canChange && <AddTag feature={feature} />}
    </section>
  )
}

function AddTag ({ feature }: { feature: FeatureDetails }) {
  const announce = useAnnounce()
  const types = useTagTypes()
  const [chosen, setType] = useState('simple')
  const [value, setValue] = useState('')
  const add = useAddTag(feature, {
    onSuccess: (_d, tag) => {
      announce(`Tagged ${tagLabel(tag)}`)
      setValue('')
    },
  })
  const options = (types.data?.map((t) => t.name) ?? ['simple']).map((name) => ({ value: name, label: name }))
  // The type shown is the type sent, also when `simple` is not among the tag types.
  const type = options.some((o) => o.value === chosen) ? chosen : options[0]?.value ?? chosen
  const submit = submitting(() => add.mutate({ type, value: value.trim() }))
  return (
    <form onSubmit={submit} aria-label='Add a tag'>
      <div className='row align-end'>
        <SelectField label='Tag type' value={type} onChange={setType} options={options} errors={errorsAt(add.error, '/type')} />
        <TextField label='Tag value' value={value} onChange={setValue} required minLength={2} maxLength={50} errors={errorsAt(add.error, '/value')} />
        <button type='submit' className='secondary' aria-busy={add.isPending || undefined} disabled={add.isPending}>Add tag</button>
      </div>
      <ErrorAlert error={add.error ?? types.error} shownAt={['/type', '/value']} />
    </form>
  )
}
