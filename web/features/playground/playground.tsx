import { useId, useMemo, useState } from 'react'
import { useContextFields, useEnvironments, useProjects } from '../../api/reads'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { SelectField, submitting } from '../../components/form'
import { BUILT_IN_CONTEXT } from '../../lib/constraints'
import { environmentOptions, projectOptions } from '../../lib/labels'
import { type PlaygroundFeature, type PlaygroundRequest, type PlaygroundResponse, usePlayground } from './api'
import { explainConstraint, flagVerdict, type SentContext, strategyName, strategyVerdict } from './explain'

/** Fields the SDKs send at the top level; every other context field goes into `properties`. */
const TOP_LEVEL = new Set(BUILT_IN_CONTEXT)

interface Row { field: string; value: string }

/** The request a form makes: built-in fields at the top level, the others as properties; empty rows left out. */
export function playgroundRequest (environment: string, project: string, rows: Row[]): PlaygroundRequest {
  const context: Record<string, unknown> = { appName: '' }
  const properties: Record<string, string> = {}
  for (const { field, value } of rows) {
    if (value === '' && field !== 'appName') continue
    if (TOP_LEVEL.has(field)) context[field] = value
    else properties[field] = value
  }
  if (Object.keys(properties).length > 0) context.properties = properties
  return { environment, projects: project === '' ? '*' : [project], context: context as PlaygroundRequest['context'] }
}

/**
 * The playground: an environment, the projects, a context (the known context fields, each a row),
 * and every flag's answer for it, with why: each strategy, constraint and segment in words.
 */
export function Playground () {
  const environments = useEnvironments()
  const projects = useProjects()
  const fields = useContextFields(60_000)
  const ask = usePlayground()
  // The last answer stays while the next is asked for: the answers a person opened stay open.
  const [answer, setAnswer] = useState<PlaygroundResponse | undefined>()
  const [environment, setEnvironment] = useState('')
  const [project, setProject] = useState('')
  const [rows, setRows] = useState<Row[]>([{ field: 'appName', value: 'playground' }, { field: 'userId', value: '' }])
  const [adding, setAdding] = useState('')
  const known = useMemo(() => [...new Set([...BUILT_IN_CONTEXT, ...(fields.data ?? []).map((f) => f.name)])], [fields.data])
  const unused = known.filter((name) => !rows.some((r) => r.field === name))
  const chosenEnvironment = environment || environments.data?.[0]?.name || ''
  const legalValues = (field: string) => fields.data?.find((f) => f.name === field)?.legalValues ?? []
  const setRow = (i: number, value: string) => setRows(rows.map((r, k) => (k === i ? { ...r, value } : r)))
  const addField = () => {
    const field = adding || unused[0]
    if (field) setRows([...rows, { field, value: '' }])
    setAdding('')
  }
  const idBase = useId()

  return (
    <>
      <form className='card' onSubmit={submitting(() => ask.mutate(playgroundRequest(chosenEnvironment, project, rows), { onSuccess: setAnswer }))}>
        <div className='grid'>
          <SelectField label='Environment' value={chosenEnvironment} onChange={setEnvironment} options={environmentOptions(environments.data)} />
          <SelectField label='Projects' value={project} onChange={setProject} options={[{ value: '', label: 'All projects' }, ...projectOptions(projects.data)]} />
        </div>
        <fieldset>
          <legend>Context</legend>
          <p className='muted'>What your application would send to its SDK. appName is required.</p>
          {rows.map((row, i) => {
            const suggestions = legalValues(row.field)
            const listId = `${idBase}-values-${i}`
            return (
              <div className='context-row' key={row.field}>
                <div className='field'>
                  <label htmlFor={`${idBase}-${i}`}>{row.field}</label>
                  <input
                    id={`${idBase}-${i}`}
                    value={row.value}
                    required={row.field === 'appName'}
                    list={suggestions.length > 0 ? listId : undefined}
                    placeholder={row.field === 'currentTime' ? '2030-01-31T12:00:00Z (empty: now)' : undefined}
                    aria-invalid={errorsAt(ask.error, TOP_LEVEL.has(row.field) ? `/context/${row.field}` : `/context/properties/${row.field}`).length > 0 || undefined}
                    onChange={(e) => setRow(i, e.target.value)}
                  />
                  {suggestions.length > 0 && <datalist id={listId}>{suggestions.map((v) => <option key={v.value} value={v.value} />)}</datalist>}
                </div>
                {row.field !== 'appName' && (
                  <button type='button' className='secondary outline' onClick={() => setRows(rows.filter((_, k) => k !== i))}>Remove {row.field}</button>
                )}
              </div>
            )
          })}
          {unused.length > 0 && (
            <div className='context-row'>
              <SelectField label='Add a context field' value={adding || unused[0]!} onChange={setAdding} options={unused.map((name) => ({ value: name, label: name }))} />
              <button type='button' className='secondary' onClick={addField}>Add field</button>
            </div>
          )}
        </fieldset>
        <ErrorAlert error={ask.error} />
        <button type='submit' aria-busy={ask.isPending || undefined}>Evaluate</button>
      </form>
      {answer && <Results answer={answer} />}
    </>
  )
}

/** Every flag's answer, filterable by name; each opens to its strategies, segments and constraints. */
function Results ({ answer }: { answer: PlaygroundResponse }) {
  const [filter, setFilter] = useState('')
  const { environment } = answer.input
  const context = answer.input.context as SentContext
  const shown = answer.features.filter((f) => f.name.toLowerCase().includes(filter.trim().toLowerCase()))
  const on = answer.features.filter((f) => f.isEnabled).length
  return (
    <section aria-labelledby='playground-results'>
      <h2 id='playground-results'>Results in {environment}</h2>
      <p role='status'>{on} of {answer.features.length} flags on for this context.</p>
      <div className='field'>
        <label htmlFor='playground-filter'>Find a flag</label>
        <input id='playground-filter' type='search' value={filter} onChange={(e) => setFilter(e.target.value)} />
      </div>
      <ul className='playground-results'>
        {shown.map((f) => <FlagAnswer key={`${f.projectId}/${f.name}`} flag={f} environment={environment} context={context} />)}
      </ul>
    </section>
  )
}

function FlagAnswer ({ flag, environment, context }: { flag: PlaygroundFeature; environment: string; context: SentContext }) {
  return (
    <li>
      <details>
        <summary>
          <span className='flag-name'>{flag.name}</span>{' '}
          <span className={`env-state ${flag.isEnabled ? 'on' : 'off'}`}>{flag.isEnabled ? 'On' : 'Off'}</span>{' '}
          <span className='muted'>{flagVerdict(flag, environment)}</span>
        </summary>
        <p className='muted'>Project {flag.projectId}{flag.isEnabledInCurrentEnvironment ? `; switched on in ${environment}` : `; switched off in ${environment}`}{flag.hasUnsatisfiedDependency ? '; a flag it depends on is not as it requires' : ''}.</p>
        {flag.strategies.data.length === 0
          ? <p>No strategies.</p>
          : (
            <ol className='strategies'>
              {flag.strategies.data.map((s) => (
                <li key={s.id}>
                  <strong>{strategyName(s)}</strong>: {strategyVerdict(s)}
                  {(s.constraints.length > 0 || s.segments.length > 0) && (
                    <ul className='facts-list'>
                      {s.constraints.map((c, i) => <li key={i}>{explainConstraint(c, context)}</li>)}
                      {s.segments.map((g) => (
                        <li key={g.id}>
                          Segment {g.name}: {g.result ? 'yes' : 'no'}
                          <ul className='facts-list'>{g.constraints.map((c, i) => <li key={i}>{explainConstraint(c, context)}</li>)}</ul>
                        </li>
                      ))}
                    </ul>
                  )}
                </li>
              ))}
            </ol>
            )}
      </details>
    </li>
  )
}
