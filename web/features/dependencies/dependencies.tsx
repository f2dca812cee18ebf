import { useId, useState } from 'react'
import { Link } from 'wouter'
import { seg } from '../../api/client'
import { useFlags } from '../../api/reads'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { SelectField, submitting, TextField } from '../../components/form'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { commaList } from '../../lib/lists'
import { useSession } from '../../lib/session'
import { useAddDependency, useRemoveDependency } from './api'

/** The flags this one depends on (with a way to add and remove them), and those that depend on it. */
export function Dependencies ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const announce = useAnnounce()
  const canChange = session.can('change-flags', feature.project) && feature.lifecycle.stage !== 'archived'
  const [adding, setAdding] = useState(false)
  const remove = useRemoveDependency(feature, { onSuccess: (_d, parent) => announce(`Dependency on ${parent} removed`) })
  const link = (name: string) => <Link href={`/projects/${seg(feature.project)}/features/${seg(name)}`}>{name}</Link>
  return (
    <section aria-labelledby='dependencies-heading'>
      <h2 id='dependencies-heading'>Dependencies</h2>
      {feature.dependencies.length === 0 && <p className='muted'>This flag depends on no other flag.</p>}
      <ul>
        {feature.dependencies.map((d) => (
          <li key={d.feature}>
            On only when {link(d.feature)} is {d.enabled ? 'on' : 'off'}
            {d.variants.length ? ` with variant ${d.variants.join(' or ')}` : ''}
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
  const features = useFlags(feature.project)
  const done = useSayAndClose(onDone)
  const listId = useId()
  const [parent, setParent] = useState('')
  const [when, setWhen] = useState('on')
  const [variants, setVariants] = useState('')
  const add = useAddDependency(feature, done(() => `${feature.name} now depends on ${parent}`))
  const submit = submitting(() => {
    const names = commaList(variants)
    add.mutate({ feature: parent.trim(), enabled: when === 'on', ...(when === 'on' && names.length ? { variants: names } : {}) })
  })
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
