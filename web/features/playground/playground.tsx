import { useId, useMemo, useState } from 'react'
import { useContextFields, useEnvironments, useProjects } from '../../api/reads'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { SelectField, submitting } from '../../components/form'
import { BUILT_IN_CONTEXT } from '../../lib/constraints'
import { environmentOptions, projectOptions } from '../../lib/labels'
import { type AdvancedPlaygroundResponse, type PlaygroundFeature, type PlaygroundRequest, type PlaygroundResponse, useChangeRequestPreview, usePlayground } from './api'
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
 * A change request's preview as the playground's answers: one for each combination of the
 * context's values (a value with commas is several), each flag as the request would make it.
 */
export function previewAnswers (answer: AdvancedPlaygroundResponse, environment: string, project: string): PlaygroundResponse[] {
  const input = (context: unknown) => ({ environment, projects: [project], context: context as PlaygroundRequest['context'] })
  const first = answer.features[0]?.environments[environment] ?? []
  if (first.length === 0) return [{ input: input(answer.input.context), features: [] }]
  return first.map((combination, k) => ({
    input: input(combination.context),
    features: answer.features.map((f) => {
      const { context: _context, environment: _environment, ...flag } = f.environments[environment]![k]!
      return flag
    }),
  }))
}

/** The change request a preview evaluates: its environment and project are the playground's. */
export interface PreviewOf { id: number; project: string; environment: string }

/**
 * The playground: an environment, the projects, a context (the known context fields, each a row),
 * and every flag's answer for it, with why: each strategy, constraint and segment in words. With
 * `changeRequest`, its preview: the request's environment and project, as if it were applied.
 */
export function Playground ({ changeRequest }: { changeRequest?: PreviewOf } = {}) {
  const environments = useEnvironments()
  const projects = useProjects()
  const fields = useContextFields(60_000)
  const evaluate = usePlayground()
  const preview = useChangeRequestPreview(changeRequest?.id ?? 0)
  const ask = changeRequest ? preview : evaluate
  // The last answers stay while the next are asked for: the answers a person opened stay open.
  const [answers, setAnswers] = useState<PlaygroundResponse[] | undefined>()
  const [environment, setEnvironment] = useState('')
  const [project, setProject] = useState('')
  const [rows, setRows] = useState<Row[]>([{ field: 'appName', value: 'playground' }, { field: 'userId', value: '' }])
  const [adding, setAdding] = useState('')
  const known = useMemo(() => [...new Set([...BUILT_IN_CONTEXT, ...(fields.data ?? []).map((f) => f.name)])], [fields.data])
  const unused = known.filter((name) => !rows.some((r) => r.field === name))
  const chosenEnvironment = changeRequest?.environment ?? (environment || environments.data?.[0]?.name || '')
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
      <form
        className='card'
        onSubmit={submitting(() => {
          if (changeRequest) {
            preview.mutate({ context: playgroundRequest(changeRequest.environment, changeRequest.project, rows).context }, { onSuccess: (a) => setAnswers(previewAnswers(a, changeRequest.environment, changeRequest.project)) })
          } else {
            evaluate.mutate(playgroundRequest(chosenEnvironment, project, rows), { onSuccess: (a) => setAnswers([a]) })
          }
        })}
      >
        {changeRequest
          ? <p>The flags of project <strong>{changeRequest.project}</strong> in <strong>{changeRequest.environment}</strong>, as change request #{changeRequest.id} would make them. Nothing is applied. Commas separate several values of a field: each combination is evaluated.</p>
          : (
            <div className='grid'>
              <SelectField label='Environment' value={chosenEnvironment} onChange={setEnvironment} options={environmentOptions(environments.data)} />
              <SelectField label='Projects' value={project} onChange={setProject} options={[{ value: '', label: 'All projects' }, ...projectOptions(projects.data)]} />
            </div>
            )}
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
        <button type='submit' aria-busy={ask.isPending || undefined}>{changeRequest ? 'Preview' : 'Evaluate'}</button>
      </form>
      {answers?.map((answer, k) => <Results key={k} answer={answer} combination={answers.length > 1 ? combinationWords(answer.input.context) : undefined} />)}
    </>
  )
}

/** One combination of the context's values, in words ("userId u1, appName shop"). */
const combinationWords = (context: Record<string, unknown>) => Object.entries(context).map(([field, value]) => `${field} ${String(value)}`).join(', ')

/** Every flag's answer, filterable by name; each opens to its strategies, segments and constraints. */
function Results ({ answer, combination }: { answer: PlaygroundResponse; combination?: string }) {
  const [filter, setFilter] = useState('')
  const id = useId()
  const { environment } = answer.input
  const context = answer.input.context as SentContext
  const shown = answer.features.filter((f) => f.name.toLowerCase().includes(filter.trim().toLowerCase()))
  const on = answer.features.filter((f) => f.isEnabled).length
  return (
    <section aria-labelledby={`${id}-results`}>
      <h2 id={`${id}-results`}>Results in {environment}{combination ? ` for ${combination}` : ''}</h2>
      <p role='status'>{on} of {answer.features.length} flags on for this context.</p>
      <div className='field'>
        <label htmlFor={`${id}-filter`}>Find a flag</label>
        <input id={`${id}-filter`} type='search' value={filter} onChange={(e) => setFilter(e.target.value)} />
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
