import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'wouter'
import { post } from '../api'
import { useAnnounce } from '../announce'
import { Dialog, ErrorAlert, errorsAt, FormButtons, PageHeading, QueryStatus, submitting, TextArea, TextField, useTitle } from '../components/ui'
import { keys, useProjects } from '../queries'
import { useSession } from '../session'

export function Projects () {
  useTitle('Projects')
  const projects = useProjects()
  const session = useSession()
  const [creating, setCreating] = useState(false)
  return (
    <>
      <PageHeading actions={session.can('admin') && <button type='button' onClick={() => setCreating(true)}>New project</button>}>Projects</PageHeading>
      <QueryStatus query={projects} what='Loading projects' />
      {projects.data && (
        <ul className='cards'>
          {projects.data.map((p) => (
            <li key={p.id}>
              <article>
                <h2><Link href={`/projects/${encodeURIComponent(p.id)}`}>{p.name}</Link></h2>
                <p className='muted'>{p.description || 'No description'} · id <code>{p.id}</code></p>
              </article>
            </li>
          ))}
        </ul>
      )}
      <NewProject open={creating} onClose={() => setCreating(false)} />
    </>
  )
}

function NewProject ({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const client = useQueryClient()
  const announce = useAnnounce()
  const create = useMutation({
    mutationFn: () => post('/api/admin/projects', { id, name: name || id, ...(description ? { description } : {}) }),
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.projects })
      announce(`Project ${id} created`)
      setId('')
      setName('')
      setDescription('')
      onClose()
    },
  })
  const submit = submitting(() => create.mutate())
  return (
    <Dialog title='New project' open={open} onClose={onClose}>
      <form onSubmit={submit}>
        <TextField label='Project id' value={id} onChange={setId} required hint='Letters, digits and - _ . ~ ; used in URLs, cannot change later' errors={errorsAt(create.error, '/id')} />
        <TextField label='Name' value={name} onChange={setName} hint='Shown to people; the id if left empty' errors={errorsAt(create.error, '/name')} />
        <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(create.error, '/description')} />
        <ErrorAlert error={create.error} shownAt={['/id', '/name', '/description']} />
        <FormButtons onCancel={onClose} label='Create' busy={create.isPending} />
      </form>
    </Dialog>
  )
}
