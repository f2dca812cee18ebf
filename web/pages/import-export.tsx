import { useMutation } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { post } from '../api'
import { useAnnounce } from '../announce'
import { ErrorAlert, PageHeading, SelectField, submitting, useTitle } from '../components/ui'
import { useEnvironments, useProjects } from '../queries'

interface Finding { message: string; affectedItems: string[] }
interface Validation { errors: Finding[]; warnings: Finding[]; permissions?: Finding[] }

/** Largest file the screen reads (the API refuses larger bodies anyway). */
const MAX_FILE_BYTES = 10 * 1024 * 1024

export function ImportExport () {
  useTitle('Import and export')
  return (
    <>
      <PageHeading>Import and export</PageHeading>
      <p className='muted'>Move flags between instances (or from Unleash): an export holds the flags of a project with their strategies, variants, tags, context fields, segments and dependencies in one environment.</p>
      <Export />
      <Import />
    </>
  )
}

function Export () {
  const projects = useProjects()
  const environments = useEnvironments()
  const announce = useAnnounce()
  const [project, setProject] = useState('default')
  const [environment, setEnvironment] = useState('development')
  const run = useMutation({
    // By project: a project without flags exports none (an empty list of names would mean "all").
    mutationFn: async () => {
      const data = await post<{ features: unknown[] }>('/api/admin/features-batch/export', { project, environment })
      return { data, count: data.features.length }
    },
    onSuccess: ({ data, count }) => {
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }))
      const a = document.createElement('a')
      a.href = url
      a.download = `export-${project}-${environment}.json`
      a.click()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
      announce(`Exported ${count} ${count === 1 ? 'flag' : 'flags'} of ${project} in ${environment}`)
    },
  })
  const submit = submitting(() => run.mutate())
  return (
    <section aria-labelledby='export-heading' className='card'>
      <h2 id='export-heading'>Export</h2>
      <form onSubmit={submit}>
        <div className='grid-2'>
          <SelectField label='Project' value={project} onChange={setProject} options={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))} />
          <SelectField label='Environment' value={environment} onChange={setEnvironment} options={(environments.data ?? []).map((e) => ({ value: e.name, label: e.name }))} />
        </div>
        <ErrorAlert error={run.error} />
        <button type='submit' aria-busy={run.isPending || undefined}>Download the export</button>
      </form>
    </section>
  )
}

function Import () {
  const projects = useProjects()
  const environments = useEnvironments()
  const announce = useAnnounce()
  const fileId = useId()
  const [project, setProject] = useState('default')
  const [environment, setEnvironment] = useState('development')
  const [data, setData] = useState<unknown>(undefined)
  const [fileProblem, setFileProblem] = useState<string | null>(null)
  const validate = useMutation({
    mutationFn: () => post<Validation>('/api/admin/features-batch/validate', { project, environment, data }),
  })
  const run = useMutation({
    mutationFn: () => post('/api/admin/features-batch/import', { project, environment, data }),
    onSuccess: () => announce(`Imported into ${project} in ${environment}`),
  })
  const readFile = async (file: File | undefined) => {
    setData(undefined)
    validate.reset()
    run.reset()
    setFileProblem(null)
    if (!file) return
    if (file.size > MAX_FILE_BYTES) {
      setFileProblem(`The file is ${(file.size / 1e6).toFixed(1)} MB; at most ${MAX_FILE_BYTES / 1e6} MB can be imported.`)
      return
    }
    try {
      setData(JSON.parse(await file.text()))
    } catch (error) {
      setFileProblem(`This is not a JSON export: ${(error as Error).message}`)
    }
  }
  const result = validate.data
  const blocked = !result || result.errors.length > 0 || (result.permissions?.length ?? 0) > 0
  return (
    <section aria-labelledby='import-heading' className='card'>
      <h2 id='import-heading'>Import</h2>
      <form onSubmit={submitting(() => validate.mutate())}>
        <div className='grid-2'>
          <SelectField label='Into project' value={project} onChange={(v) => { setProject(v); validate.reset() }} options={(projects.data ?? []).map((p) => ({ value: p.id, label: p.name }))} />
          <SelectField label='Into environment' value={environment} onChange={(v) => { setEnvironment(v); validate.reset() }} options={(environments.data ?? []).map((e) => ({ value: e.name, label: e.name }))} />
        </div>
        <div className='field'>
          <label htmlFor={fileId}>Export file</label>
          <input id={fileId} type='file' accept='application/json,.json' aria-describedby={`${fileId}-hint`} onChange={(e) => readFile(e.target.files?.[0])} />
          <small id={`${fileId}-hint`}>A JSON file made by Export (here or in Unleash). It is checked before anything is imported.</small>
          {fileProblem && <small className='field-error' role='alert'>{fileProblem}</small>}
        </div>
        <ErrorAlert error={validate.error} />
        <button type='submit' className='secondary' disabled={data === undefined || validate.isPending} aria-busy={validate.isPending || undefined}>Validate</button>
      </form>
      {result && (
        <div role='region' aria-label='Validation result'>
          {result.errors.length === 0 && (result.permissions?.length ?? 0) === 0 && <p><strong>The file can be imported.</strong></p>}
          <Findings title='Errors (nothing can be imported until they are fixed)' items={[...result.errors, ...(result.permissions ?? [])]} kind='error' />
          <Findings title='Warnings' items={result.warnings} kind='warning' />
          <ErrorAlert error={run.error} />
          {run.isSuccess
            ? <p role='status'><strong>Imported.</strong> The flags are in {project}, in {environment}.</p>
            : <button type='button' disabled={blocked || run.isPending} aria-busy={run.isPending || undefined} onClick={() => run.mutate()}>Import</button>}
        </div>
      )}
    </section>
  )
}

function Findings ({ title, items, kind }: { title: string; items: Finding[]; kind: 'error' | 'warning' }) {
  if (items.length === 0) return null
  return (
    <div className={`alert ${kind}`}>
      <h3>{title}</h3>
      <ul>{items.map((f, i) => <li key={i}>{findingText(f)}</li>)}</ul>
    </div>
  )
}

/** Unleash's messages end with a colon before the items they name; ours may not. */
const findingText = (f: Finding) =>
  f.affectedItems.length === 0 ? f.message : `${f.message}${f.message.endsWith(':') ? '' : ':'} ${f.affectedItems.join(', ')}`
