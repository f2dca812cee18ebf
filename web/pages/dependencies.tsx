import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { Link } from 'wouter'
import { del, flagPath, post, seg } from '../api'
import { useAnnounce } from '../announce'
import { ErrorAlert, errorsAt, SelectField, submitting, TextField } from '../components/ui'
import { keys, useFeatures } from '../queries'
import { useSession } from '../session'
import type { FeatureDetails } from '../types'

export function Dependencies ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const client = useQueryClient()
  const announce = useAnnounce()
  const canChange = session.can('change-flags') && feature.lifecycle.stage !== 'archived'
  const [adding, setAdding] = useState(false)
  const refresh = () => client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) })
  const remove = useMutation({
    mutationFn: (parent: string) => del(`${flagPath(feature.project, feature.name)}/dependencies/${seg(parent)}`),
    onSuccess: async (_d, parent) => {
      await refresh()
      announce(`Dependency on ${parent} removed`)
    },
  })
  const link = (name: string) => <Link href={`/projects/${seg(feature.project)}/features/${seg(name)}`}>{name}</Link>
  return (
    <section aria-labelledby='dependencies-heading'>
      <h2 id='dependencies-heading'>Dependencies</h2>
      {feature.dependencies.length === 0 && <p className='muted'>This flag depends on no other flag.</p>}
      <ul>
        {feature.dependencies.map((d) => (
          <li key={d.feature}>
            On only when {link(d.feature)} is {d.enabled ? 'on' : 'off'}
            {d.variants?.length ? ` with variant ${d.variants.join(' or ')}` : ''}
            {canChange && (
              <button type='button' className='secondary outline small inline' onClick={() => remove.mutate(d.feature)}>
                Remove dependency on {d.feature}
              </button>
            )}
          </li>
        ))}
      </ul>
      {feature.children.length > 0 && <p>Flags that depend on this one: {feature.children.map((c, i) => <span key={c}>{i > 0 && ', '}{link(c)}</span>)}</p>}
      <ErrorAlert error={remove.error} />
      {canChange && !adding && <button type='button' className='secondary' onClick={() => setAdding(true)}>Add dependency</button>}
      {canChange && adding && <AddDependency feature={feature} onDone={() => setAdding(false)} />}
    </section>
  )
}

function AddDependency ({ feature, onDone }: { feature: FeatureDetails; onDone: () => void }) {
  const features = useFeatures(feature.project)
  const client = useQueryClient()
  const announce = useAnnounce()
  const listId = useId()
  const [parent, setParent] = useState('')
  const [when, setWhen] = useState('on')
  const [variants, setVariants] = useState('')
  const add = useMutation({
    mutationFn: () => {
      const names = variants.split(',').map((v) => v.trim()).filter(Boolean)
      return post(`${flagPath(feature.project, feature.name)}/dependencies`, { feature: parent.trim(), enabled: when === 'on', ...(when === 'on' && names.length ? { variants: names } : {}) })
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.feature(feature.project, feature.name) })
      announce(`${feature.name} now depends on ${parent}`)
      onDone()
    },
  })
  const submit = submitting(() => add.mutate())
  return (
    <form onSubmit={submit} className='card'>
      <datalist id={listId}>
        {(features.data ?? []).filter((f) => f.name !== feature.name).slice(0, 1000).map((f) => <option key={f.name} value={f.name} />)}
      </datalist>
      <TextField label='Parent flag' value={parent} onChange={setParent} list={listId} required hint='A flag of the same project' errors={errorsAt(add.error, '/feature')} />
      <SelectField label='This flag is on only when the parent is' value={when} onChange={setWhen} options={[{ value: 'on', label: 'On' }, { value: 'off', label: 'Off' }]} />
      {when === 'on' && <TextField label='With one of these parent variants (optional)' value={variants} onChange={setVariants} hint='Variant names separated by commas; empty: any variant' errors={errorsAt(add.error, '/variants')} />}
      <ErrorAlert error={add.error} shownAt={['/feature', '/variants']} />
      <div className='row'>
        <button type='button' className='secondary' onClick={onDone}>Cancel</button>
        <button type='submit' aria-busy={add.isPending || undefined}>Add dependency</button>
      </div>
    </form>
  )
}
