import { useState } from 'react'

/**
 * A form's values in one piece of state: `values`, `field(name)` to spread on the labelled
 * control that edits one (its value and onChange), `set` for any others, `reset` to start over.
 */
export function useFields<T extends object> (initial: T) {
  const [values, setValues] = useState(initial)
  const set = (patch: Partial<T>) => setValues((current) => ({ ...current, ...patch }))
  const field = <K extends keyof T>(name: K) => ({ value: values[name], onChange: (value: T[K]) => set({ [name]: value } as unknown as Partial<T>) })
  return { values, field, set, reset: () => setValues(initial) }
}
