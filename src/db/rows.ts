/**
 * Rows grouped by a key (a feature's name, an environment's), each group in the order of the
 * rows: the query's ORDER BY decides the order within a group.
 */
export function groupBy<T, V> (rows: Iterable<T>, key: (row: T) => string, value: (row: T) => V): Map<string, V[]> {
  const groups = new Map<string, V[]>()
  for (const row of rows) {
    const k = key(row)
    const group = groups.get(k)
    if (group) group.push(value(row))
    else groups.set(k, [value(row)])
  }
  return groups
}
