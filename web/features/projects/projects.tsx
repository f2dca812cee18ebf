import { useState } from 'react'
import { Link } from 'wouter'
import { useProjects } from '../../api/reads'
import { FormDialog } from '../../components/dialog'
import { errorsAt, QueryStatus } from '../../components/feedback'
import { TextArea, TextField } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { useCreateProject } from './api'

export function ProjectCards () {
  const projects = useProjects()
  return (
    <>
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
    </>
  )
}

export function NewProject ({ open, onClose }: { open: boolean; onClose: () => void }) {
  const [id, setId] = useState('')
  const [name, setName] = useState('')
  const [description, setDescription] = useState('')
  const announce = useAnnounce()
  const create = useCreateProject({
    onSuccess: () => {
      announce(`Project ${id} created`)
      setId('')
      setName('')
      setDescription('')
      onClose()
    },
  })
  return (
    <FormDialog
      title='New project'
      open={open}
      onClose={onClose}
      onSubmit={() => create.mutate({ id, name: name || id, ...(description ? { description } : {}) })}
      write={create}
      shownAt={['/id', '/name', '/description']}
      submitLabel='Create'
    >
      <TextField label='Project id' value={id} onChange={setId} required hint='Letters, digits and - _ . ~ ; used in URLs, cannot change later' errors={errorsAt(create.error, '/id')} />
      <TextField label='Name' value={name} onChange={setName} hint='Shown to people; the id if left empty' errors={errorsAt(create.error, '/name')} />
      <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(create.error, '/description')} />
    </FormDialog>
  )
}
