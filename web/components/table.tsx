// Lists as tables: a header cell naming each row, and the row's buttons named for a screen reader.
import type { ReactNode } from 'react'
import { QueryStatus } from './feedback'

/** A column: its heading and what a row shows in it. */
export interface Column<T> {
  label: string
  cell: (item: T) => ReactNode
}

/**
 * A table of items, scrolling sideways on a narrow screen. The first column names the row (a
 * row header, with `detail` under it in small print); `actions`, when given, fills a last column
 * of buttons.
 */
interface TableProps<T> {
  items: T[]
  rowKey: (item: T) => string | number
  rowHeader: Column<T> & { detail?: (item: T) => ReactNode }
  columns: Column<T>[]
  actions?: (item: T) => ReactNode
}

export function Table<T> ({ items, rowKey, rowHeader, columns, actions }: TableProps<T>) {
  return (
    <div className='table-scroll'>
      <table>
        <thead>
          <tr>
            {[rowHeader, ...columns].map((c) => <th key={c.label} scope='col'>{c.label}</th>)}
            {actions && <th scope='col'><span className='visually-hidden'>Actions</span></th>}
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <tr key={rowKey(item)}>
              <RowHeader detail={rowHeader.detail?.(item)}>{rowHeader.cell(item)}</RowHeader>
              {columns.map((c) => <td key={c.label}>{c.cell(item)}</td>)}
              {actions && <td>{actions(item)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/**
 * A read's items as a table: the read's status while it loads or when it failed; once it has
 * answered, the table, or `empty` when it found nothing (without `empty`, a table without rows).
 */
export type QueryTableProps<T> = Omit<TableProps<T>, 'items'> & {
  query: { isPending: boolean; error: unknown; data?: T[] }
  /** What is loading, as the status says it. */
  what: string
  empty?: ReactNode
}

export function QueryTable<T> ({ query, what, empty, ...table }: QueryTableProps<T>) {
  const items = query.data
  return (
    <>
      <QueryStatus query={query} what={what} />
      {empty !== undefined && items?.length === 0 && <p>{empty}</p>}
      {items && (empty === undefined || items.length > 0) && <Table items={items} {...table} />}
    </>
  )
}

/** The header cell of a table row: what the row is, and under it a detail in small print. */
export function RowHeader ({ children, detail }: { children: ReactNode; detail?: ReactNode }) {
  return <th scope='row'>{children}{detail ? <><br /><small className='muted'>{detail}</small></> : null}</th>
}

/** A small button in a row of a list or table; `what` completes its name for a screen reader ("Edit beta-testers"). */
export function RowButton ({ children, what, onClick, disabled }: { children: ReactNode; what: string; onClick: () => void; disabled?: boolean }) {
  return (
    <button type='button' className='secondary outline small' onClick={onClick} disabled={disabled}>
      {children}<span className='visually-hidden'> {what}</span>
    </button>
  )
}

/** A row's Edit and Delete buttons. */
export function EditDelete ({ what, onEdit, onDelete }: { what: string; onEdit?: () => void; onDelete: () => void }) {
  return (
    <div className='row'>
      {onEdit && <RowButton onClick={onEdit} what={what}>Edit</RowButton>}
      <RowButton onClick={onDelete} what={what}>Delete</RowButton>
    </div>
  )
}
