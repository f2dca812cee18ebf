// A list whose rows a role may edit and delete: each row's Edit opens the item's dialog, its
// Delete asks first.
import type { UseMutationResult } from '@tanstack/react-query'
import { type ReactNode, useState } from 'react'
import { Confirm, useConfirmedRemoval } from './dialog'
import { EditDelete, QueryTable, type QueryTableProps } from './table'

type Props<T> = Omit<QueryTableProps<T>, 'actions'> & {
  /** Whether the role may edit and delete (otherwise the rows have no buttons). */
  mayChange: boolean
  /** The row's name, completing its buttons' names for a screen reader ("Edit beta-testers"). */
  name: (item: T) => string
  /** The dialog that edits an item; `close` closes it. */
  edit: (item: T, close: () => void) => ReactNode
  /** The write that deletes an item (from its feature's api.ts), and what the confirmation says. */
  remove: { write: UseMutationResult<unknown, Error, T>; title: (item: T) => string; body: (item: T) => ReactNode }
}

export function EditableTable<T> ({ mayChange, name, edit, remove, ...table }: Props<T>) {
  const [editing, setEditing] = useState<T | null>(null)
  const removal = useConfirmedRemoval(remove.write)
  return (
    <>
      <QueryTable {...table} actions={mayChange ? (item) => <EditDelete what={name(item)} onEdit={() => setEditing(item)} onDelete={() => removal.ask(item)} /> : undefined} />
      {editing !== null && edit(editing, () => setEditing(null))}
      <Confirm title={removal.item === null ? '' : remove.title(removal.item)} confirmLabel='Delete' {...removal.confirm}>
        {removal.item !== null && remove.body(removal.item)}
      </Confirm>
    </>
  )
}
