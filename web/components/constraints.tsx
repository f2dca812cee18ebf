// Constraints, as strategies and segments both hold them: a context field, an operator, its
// values, and the two switches (case-insensitive, inverted). Each reads as a sentence.
import { useQuery } from '@tanstack/react-query'
import { useId } from 'react'
import { ApiProblem, get } from '../api'
import type { Constraint, ContextField, Operator } from '../types'
import { Check, SelectField } from './ui'

export const OPERATORS: { value: Operator; label: string }[] = [
  { value: 'IN', label: 'is one of' },
  { value: 'NOT_IN', label: 'is not one of' },
  { value: 'STR_CONTAINS', label: 'contains' },
  { value: 'STR_STARTS_WITH', label: 'starts with' },
  { value: 'STR_ENDS_WITH', label: 'ends with' },
  { value: 'NUM_EQ', label: 'number equals' },
  { value: 'NUM_GT', label: 'number greater than' },
  { value: 'NUM_GTE', label: 'number at least' },
  { value: 'NUM_LT', label: 'number less than' },
  { value: 'NUM_LTE', label: 'number at most' },
  { value: 'DATE_AFTER', label: 'date after' },
  { value: 'DATE_BEFORE', label: 'date before' },
  { value: 'SEMVER_EQ', label: 'version equals' },
  { value: 'SEMVER_GT', label: 'version greater than' },
  { value: 'SEMVER_GTE', label: 'version at least' },
  { value: 'SEMVER_LT', label: 'version less than' },
  { value: 'SEMVER_LTE', label: 'version at most' },
  { value: 'REGEX', label: 'matches the pattern' },
  { value: 'IN_CIDR', label: 'is an address in' },
]

const LIST_OPERATORS: Operator[] = ['IN', 'NOT_IN', 'STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'IN_CIDR']
export const takesList = (op: Operator) => LIST_OPERATORS.includes(op)
const takesCase = (op: Operator) => op.startsWith('STR_') || op === 'REGEX'

const SINGLE_HINTS: Partial<Record<string, string>> = {
  NUM: 'A number, such as 42 or 3.5',
  DATE: 'A date and time with its zone, such as 2030-01-31T12:00:00Z',
  SEMVER: 'A version such as 1.2.3 (no leading v)',
  REGEX: 'A regular expression (RE2 syntax)',
}

/** Context fields the SDKs fill in themselves; custom ones come from the context API. */
const BUILT_IN_CONTEXT = ['appName', 'currentTime', 'environment', 'remoteAddress', 'sessionId', 'userId']

/** A constraint being edited: values as the text a person types, one per line. */
export interface ConstraintDraft {
  contextName: string
  operator: Operator
  valuesText: string
  value: string
  inverted: boolean
  caseInsensitive: boolean
}

export const toDraft = (c: Constraint): ConstraintDraft => ({
  contextName: c.contextName,
  operator: c.operator,
  valuesText: (c.values ?? []).join('\n'),
  value: c.value ?? '',
  inverted: c.inverted ?? false,
  caseInsensitive: c.caseInsensitive ?? false,
})

export const newDraft = (): ConstraintDraft => ({ contextName: 'userId', operator: 'IN', valuesText: '', value: '', inverted: false, caseInsensitive: false })

export function fromDraft (d: ConstraintDraft): Constraint {
  const out: Constraint = { contextName: d.contextName.trim(), operator: d.operator }
  if (takesList(d.operator)) out.values = d.valuesText.split('\n').map((v) => v.trim()).filter(Boolean)
  else out.value = d.value.trim()
  if (d.inverted) out.inverted = true
  if (d.caseInsensitive && takesCase(d.operator)) out.caseInsensitive = true
  return out
}

/** "userId is one of a, b" — how a constraint reads in lists and history. */
export function describeConstraint (c: Constraint): string {
  const op = OPERATORS.find((o) => o.value === c.operator)?.label ?? c.operator
  const values = c.values ? c.values.join(', ') : c.value ?? ''
  return `${c.contextName} ${c.inverted ? 'NOT ' : ''}${op} ${values}${c.caseInsensitive ? ' (ignoring case)' : ''}`
}

export function useContextFields () {
  return useQuery({
    queryKey: ['context'],
    queryFn: () => get<ContextField[]>('/api/admin/context'),
    staleTime: 60_000,
  })
}

export function ConstraintsEditor ({ drafts, onChange, error, pathPrefix = '/constraints' }: {
  drafts: ConstraintDraft[]
  onChange: (drafts: ConstraintDraft[]) => void
  error?: unknown
  pathPrefix?: string
}) {
  const context = useContextFields()
  const listId = useId()
  const names = [...new Set([...BUILT_IN_CONTEXT, ...(context.data ?? []).map((c) => c.name)])].sort()
  const update = (i: number, patch: Partial<ConstraintDraft>) => onChange(drafts.map((d, j) => (j === i ? { ...d, ...patch } : d)))
  return (
    <fieldset className='constraints'>
      <legend>Constraints</legend>
      {drafts.length === 0 && <p className='muted'>No constraints: everyone the strategy reaches gets the flag.</p>}
      <datalist id={listId}>{names.map((n) => <option key={n} value={n} />)}</datalist>
      <ol>
        {drafts.map((d, i) => {
          const problems = error instanceof ApiProblem ? error.under(`${pathPrefix}/${i}`) : []
          const group = (SINGLE_HINTS[d.operator.split('_')[0]!] ?? SINGLE_HINTS[d.operator]) || ''
          return (
            <li key={i} className='constraint'>
              <fieldset>
                <legend>Constraint {i + 1}</legend>
                <div className='grid-3'>
                  <div className='field'>
                    <label htmlFor={`${listId}-ctx-${i}`}>Context field</label>
                    <input id={`${listId}-ctx-${i}`} list={listId} value={d.contextName} onChange={(e) => update(i, { contextName: e.target.value })} required />
                  </div>
                  <SelectField label='Operator' value={d.operator} onChange={(operator) => update(i, { operator: operator as Operator })} options={OPERATORS} />
                  {takesList(d.operator)
                    ? (
                      <div className='field'>
                        <label htmlFor={`${listId}-values-${i}`}>Values</label>
                        <textarea
                          id={`${listId}-values-${i}`}
                          rows={3}
                          value={d.valuesText}
                          aria-describedby={`${listId}-values-hint-${i}`}
                          onChange={(e) => update(i, { valuesText: e.target.value })}
                        />
                        <small id={`${listId}-values-hint-${i}`}>One value per line (up to 250).</small>
                      </div>
                      )
                    : (
                      <div className='field'>
                        <label htmlFor={`${listId}-value-${i}`}>Value</label>
                        <input id={`${listId}-value-${i}`} value={d.value} aria-describedby={`${listId}-value-hint-${i}`} onChange={(e) => update(i, { value: e.target.value })} />
                        <small id={`${listId}-value-hint-${i}`}>{group}</small>
                      </div>
                      )}
                </div>
                <div className='row'>
                  {takesCase(d.operator) && <Check label='Case-insensitive' checked={d.caseInsensitive} onChange={(caseInsensitive) => update(i, { caseInsensitive })} />}
                  {d.operator !== 'REGEX' && <Check label='Inverted (match when this is not true)' checked={d.inverted} onChange={(inverted) => update(i, { inverted })} />}
                  <button type='button' className='secondary outline small' onClick={() => onChange(drafts.filter((_, j) => j !== i))}>
                    Remove constraint {i + 1}
                  </button>
                </div>
                {problems.length > 0 && <p className='field-error' role='alert'>{problems.join(' ')}</p>}
              </fieldset>
            </li>
          )
        })}
      </ol>
      <button type='button' className='secondary' onClick={() => onChange([...drafts, newDraft()])}>Add constraint</button>
    </fieldset>
  )
}
