import { useState } from 'react'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { submitting, TextField } from '../../components/form'
import { RowButton } from '../../components/table'
import { useAnnounce } from '../../lib/announce'
import { useSession } from '../../lib/session'
import { type FlagLink, useAddLink, useRemoveLink } from './api'

const linkName = (link: FlagLink) => link.title || link.url

/** The flag's links to elsewhere (an issue, a dashboard), in the order they were added. */
export function Links ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const canChange = session.can('change-flags', feature.project) && feature.lifecycle.stage !== 'archived'
  const announce = useAnnounce()
  const remove = useRemoveLink(feature, { onSuccess: (_d, link) => announce(`Link ${linkName(link)} removed`) })
  return (
    <section aria-labelledby='links-heading'>
      <h2 id='links-heading'>Links</h2>
      <ErrorAlert error={remove.error} />
      {feature.links.length === 0 && <p className='muted'>No links.</p>}
      {feature.links.length > 0 && (
        <ul className='flag-links' aria-label={`Links of ${feature.name}`}>
          {feature.links.map((link) => (
            <li key={link.id}>
              {/* The server stores http and https addresses only; anything else is shown, not followed. */}
              {/^https?:\/\//i.test(link.url)
                ? <a href={link.url} target='_blank' rel='noopener noreferrer'>{linkName(link)}</a>
                : <span>{linkName(link)}</span>}
              {link.title && <small className='muted'> {link.url}</small>}
              {canChange && <RowButton onClick={() => remove.mutate(link)} what={`link ${linkName(link)}`} disabled={remove.isPending}>Remove</RowButton>}
            </li>
          ))}
        </ul>
      )}
      {canChange && <AddLink feature={feature} />}
    </section>
  )
}

function AddLink ({ feature }: { feature: FeatureDetails }) {
  const announce = useAnnounce()
  const [url, setUrl] = useState('')
  const [title, setTitle] = useState('')
  const add = useAddLink(feature, {
    onSuccess: (_d, link) => {
      announce(`Link ${link.title || link.url} added`)
      setUrl('')
      setTitle('')
    },
  })
  const submit = submitting(() => add.mutate({ url: url.trim(), ...(title.trim() ? { title: title.trim() } : {}) }))
  return (
    <form onSubmit={submit} aria-label='Add a link' noValidate>
      <div className='row align-end'>
        <TextField label='Link address' type='url' inputMode='url' value={url} onChange={setUrl} required errors={errorsAt(add.error, '/url')} hint='e.g. https://github.com/org/repo/issues/1' />
        <TextField label='Link title' value={title} onChange={setTitle} errors={errorsAt(add.error, '/title')} hint='Optional' />
        <button type='submit' className='secondary' aria-busy={add.isPending || undefined} disabled={add.isPending}>Add link</button>
      </div>
      <ErrorAlert error={add.error} shownAt={['/url', '/title']} />
    </form>
  )
}
