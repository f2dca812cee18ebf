// Constraints, as strategies and segments both hold them: a context field, an operator, its
// values, and the two switches (case-insensitive, inverted).
import { useId } from 'react'
import { isListOperator, type Operator } from '../../src/vocabulary/operators'
import { ApiProblem } from '../api/client'
import { useContextFields } from '../api/reads'
import { BUILT_IN_CONTEXT, type ConstraintDraft, newDraft, OPERATOR_OPTIONS, takesCase, valueHint } from '../lib/constraints'
import { Check, SelectField } from './form'
import { updateAt } from '../lib/lists'

export function ConstraintsEditor ({ drafts, onChange, error, pathPrefix = '/constraints' }: {
  drafts: ConstraintDraft[]
  onChange: (drafts: ConstraintDraft[]) => void
  error?: unknown
  pathPrefix?: string
}) {
  const context = useContextFields(60_000)
  const listId = useId()
  const names = [...new Set([...BUILT_IN_CONTEXT, ...(context.data ?? []).map((c) => c.name)])].sort()
  const update = updateAt(drafts, onChange)
  return (
    <fieldset className='constraints'>
      <legend>Constraints</legend>
      {drafts.length === 0 && <p className='muted'>No constraints: everyone the strategy reaches gets the flag.</p>}
      <datalist id={listId}>{names.map((n) => <option key={n} value={n} />)}</datalist>
      <ol>
        {drafts.map((d, i) => {
          const problems = error instanceof ApiProblem ? error.under(`${pathPrefix}/${i}`) : []
          return (
            <li key={i} className='constraint'>
              <fieldset>
                <legend>Constraint {i + 1}</legend>
                <div className='grid-3'>
                  <div className='field'>
                    <label htmlFor={`${listId}-ctx-${i}`}>Context field</label>
                    <input id={`${listId}-ctx-${i}`} list={listId} value={d.contextName} onChange={(e) => update(i, { contextName: e.target.value })} required />
                  </div>
                  <SelectField label='Operator' value={d.operator} onChange={(operator) => update(i, { operator: operator as Operator })} options={OPERATOR_OPTIONS} />
                  {isListOperator(d.operator)
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
                        <small id={`${listId}-value-hint-${i}`}>{valueHint(d.operator)}</small>
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
