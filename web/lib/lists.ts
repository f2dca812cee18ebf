/** An editor's change to item `i` of a list it holds: the list with that item patched. */
export const updateAt = <T>(items: T[], onChange: (items: T[]) => void) =>
  (i: number, patch: Partial<T>) => onChange(items.map((item, j) => (j === i ? { ...item, ...patch } : item)))

/** Names typed separated by commas, without the blanks. */
export const commaList = (text: string) => text.split(',').map((s) => s.trim()).filter(Boolean)

/** Values typed one per line, without the blanks. */
export const lines = (text: string) => text.split('\n').map((s) => s.trim()).filter(Boolean)
