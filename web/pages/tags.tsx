import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { del, get, post, seg } from '../api'
import { useAnnounce } from '../announce'
import { ErrorAlert, errorsAt, RowButton, SelectField, submitting, TextField } from '../components/ui'
import { keys } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails, Tag, TagType } from '../types'

export const tagLabel = (t: Tag) => `${t.type}:${t.value}`

/** The tags of a flag (type:value), added and removed on the spot. */
export function Tags ({ feature }: { feature: FeatureDetails }) {
  const path = `/api/admin/features/${seg(feature.name)}/tags`
  const session = useSession()
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const tags = useQuery({ queryKey: keys.tags(feature.name), queryFn: async () => (await get<{ tags: Tag[] }>(path)).tags })
  const client = useQueryClient()
  const announce = useAnnounce()
  const refresh = () => Promise.all([
    client.invalidateQueries({ queryKey: keys.tags(feature.name) }),
    client.invalidateQueries({ queryKey: keys.features(feature.project) }),
  ])
  const remove = useMutation({
    mutationFn: (t: Tag) => del(`${path}/${seg(t.type)}/${seg(t.value)}`),
    onSuccess: async (_d, t) => {
      await refresh()
      announce(`Tag ${tagLabel(t)} removed`)
    },
  })
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
      {canChange && <AddTag path={path} onAdded={refresh} />}
    </section>
  )
}

function AddTag ({ path, onAdded }: { path: string; onAdded: () => Promise<unknown> }) {
  const announce = useAnnounce()
  const types = useQuery({ queryKey: keys.tagTypes, queryFn: async () => (await get<{ tagTypes: TagType[] }>('/api/admin/tag-types')).tagTypes, staleTime: 60_000 })
  const [chosen, setType] = useState('simple')
  const [value, setValue] = useState('')
  const add = useMutation({
    mutationFn: (tag: Tag) => post(path, tag),
    onSuccess: async (_d, tag) => {
      await onAdded()
      announce(`Tagged ${tagLabel(tag)}`)
      setValue('')
    },
  })
  const options = (types.data ?? [{ name: 'simple' }]).map((t) => ({ value: t.name, label: t.name }))
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
