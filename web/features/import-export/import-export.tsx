import { useId, useState } from 'react'
import { useEnvironments, useProjects } from '../../api/reads'
import type { Validation } from '../../api/types'
import { ErrorAlert } from '../../components/feedback'
import { SelectField, submitting } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { environmentOptions, projectOptions } from '../../lib/labels'
import { type Target, useExport, useImport, useValidateImport } from './api'

type Finding = Validation['errors'][number]

/** Largest file the screen reads (the API refuses larger bodies anyway). */
const MAX_FILE_BYTES = 10 * 1024 * 1024

/** A project and an environment to export from or import into (default and development to start). */
function TargetFields ({ target, onChange, labels }: { target: Target; onChange: (target: Target) => void; labels: [string, string] }) {
  const projects = useProjects()
  const environments = useEnvironments()
  return (
    <div className='grid-2'>
      <SelectField label={labels[0]} value={target.project} onChange={(project) => onChange({ ...target, project })} options={projectOptions(projects.data)} />
      <SelectField label={labels[1]} value={target.environment} onChange={(environment) => onChange({ ...target, environment })} options={environmentOptions(environments.data)} />
    </div>
  )
}

const START: Target = { project: 'default', environment: 'development' }

/** Downloads the flags of a project in an environment as a JSON file. */
export function Export () {
  const announce = useAnnounce()
  const [target, setTarget] = useState(START)
  // By project: a project without flags exports none (an empty list of names would mean "all").
  const run = useExport({
    onSuccess: (data, { project, environment }) => {
      const url = URL.createObjectURL(new Blob([JSON.stringify(data, null, 2)], { type: 'application/json' }))
      const a = document.createElement('a')
      a.href = url
      a.download = `export-${project}-${environment}.json`
      a.click()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
      const count = data.features.length
      announce(`Exported ${count} ${count === 1 ? 'flag' : 'flags'} of ${project} in ${environment}`)
    },
  })
  return (
    <section aria-labelledby='export-heading' className='card'>
      <h2 id='export-heading'>Export</h2>
      <form onSubmit={submitting(() => run.mutate(target))}>
        <TargetFields target={target} onChange={setTarget} labels={['Project', 'Environment']} />
        <ErrorAlert error={run.error} />
        <button type='submit' aria-busy={run.isPending || undefined}>Download the export</button>
      </form>
    </section>
  )
}

/** Reads an export file, validates it (errors and warnings first), then imports it. */
export function Import () {
  const announce = useAnnounce()
  const fileId = useId()
  const [target, setTarget] = useState(START)
  const [data, setData] = useState<unknown>(undefined)
  const [fileProblem, setFileProblem] = useState<string | null>(null)
  const validate = useValidateImport()
  const run = useImport({ onSuccess: (_d, { project, environment }) => announce(`Imported into ${project} in ${environment}`) })
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
  const blocked = !result || result.errors.length > 0 || result.permissions.length > 0
  return (
    <section aria-labelledby='import-heading' className='card'>
      <h2 id='import-heading'>Import</h2>
      <form onSubmit={submitting(() => validate.mutate({ ...target, data }))}>
        <TargetFields target={target} onChange={(next) => { setTarget(next); validate.reset() }} labels={['Into project', 'Into environment']} />
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
          {result.errors.length === 0 && result.permissions.length === 0 && <p><strong>The file can be imported.</strong></p>}
          <Findings title='Errors (nothing can be imported until they are fixed)' items={[...result.errors, ...result.permissions]} kind='error' />
          <Findings title='Warnings' items={result.warnings} kind='warning' />
          <ErrorAlert error={run.error} />
          {run.isSuccess
            ? <p role='status'><strong>Imported.</strong> The flags are in {target.project}, in {target.environment}.</p>
            : <button type='button' disabled={blocked || run.isPending} aria-busy={run.isPending || undefined} onClick={() => run.mutate({ ...target, data })}>Import</button>}
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
