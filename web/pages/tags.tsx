import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useState } from 'react'
import { del, get, post, seg } from '../api'
import { useAnnounce } from '../announce'
import { ErrorAlert, errorsAt, SelectField, TextField } from '../components/ui'
import { keys } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails, Tag, TagType } from '../types'

/** The tags of a flag (type:value), added and removed on the spot. */
export function Tags ({ feature }: { feature: FeatureDetails }) {
  const path = `/api/admin/features/${seg(feature.name)}/tags`
  const tags = useQuery({ queryKey: ['tags', feature.name], queryFn: async () => (await get<{ tags: Tag[] }>(path)).tags })
  const types = useQuery({ queryKey: ['tag-types'], queryFn: async () => (await get<{ tagTypes: TagType[] }>('/api/admin/tag-types')).tagTypes, staleTime: 60_000 })
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const [type, setType] = useState('simple')
  const [value, setValue] = useState('')
  const refresh = () => Promise.all([
    client.invalidateQueries({ queryKey: ['tags', feature.name] }),
    client.invalidateQueries({ queryKey: keys.features(feature.project) }),
  ])
  const add = useMutation({
    mutationFn: () => post(path, { type, value: value.trim() }),
    onSuccess: async () => {
      await refresh()
      announce(`Tagged ${type}:${value.trim()}`)
      setValue('')
    },
  })
  const remove = useMutation({
    mutationFn: (t: Tag) => del(`${path}/${seg(t.type)}/${seg(t.value)}`),
    onSuccess: async (_d, t) => {
      await refresh()
      announce(`Tag ${t.type}:${t.value} removed`)
    },
  })
  const submit = (e: FormEvent) => {
    e.preventDefault()
    add.mutate()
  }
  return (
    <section aria-labelledby='tags-heading'>
      <h2 id='tags-heading'>Tags</h2>
      <ErrorAlert error={tags.error ?? remove.error} />
      {tags.data?.length === 0 && <p className='muted'>No tags.</p>}
      <ul className='tags'>
        {tags.data?.map((t) => (
          <li key={`${t.type}:${t.value}`}>
            <span className='badge'>{t.type}: {t.value}</span>
            {canChange && <button type='button' className='secondary outline small' onClick={() => remove.mutate(t)}>Remove tag {t.type}: {t.value}</button>}
          </li>
        ))}
      </ul>
      {canChange && (
        <form onSubmit={submit} className='row'>
          <SelectField label='Tag type' value={type} onChange={setType} options={(types.data ?? [{ name: 'simple' }]).map((t) => ({ value: t.name, label: t.name }))} />
          <TextField label='Tag value' value={value} onChange={setValue} required minLength={2} maxLength={50} errors={errorsAt(add.error, '/value')} />
          <button type='submit' className='secondary' aria-busy={add.isPending || undefined}>Add tag</button>
        </form>
      )}
      <ErrorAlert error={add.error} shownAt={['/value']} />
    </section>
  )
}
