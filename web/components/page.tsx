// What every screen has: its own title, and a heading that takes the focus when it opens.
import { type ReactNode, useEffect, useRef, useState } from 'react'
import type { Capability } from '../lib/roles'
import { useSession } from '../lib/session'

/** Sets the page's title (every screen has its own). */
export function useTitle (title: string) {
  useEffect(() => {
    document.title = `${title} · Feature flags`
  }, [title])
}

/** The screen's heading; focused when the screen opens so a screen reader starts there. */
export function PageHeading ({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null)
  useEffect(() => {
    ref.current?.focus({ preventScroll: true })
  }, [])
  return (
    <div className='page-heading'>
      <h1 ref={ref} tabIndex={-1}>{children}</h1>
      {actions && <div className='actions'>{actions}</div>}
    </div>
  )
}

/**
 * A screen that lists things: its title and heading, an introduction, the list, and, when the
 * role may make one (`needs`), a button `newLabel` in the heading that opens the dialog `create`
 * draws for a new one (it closes it with the function it is given).
 */
export function ListScreen ({ title, intro, newLabel, needs, create, children }: {
  title: string
  intro?: ReactNode
  newLabel: string
  needs?: Capability
  create: (close: () => void) => ReactNode
  children: ReactNode
}) {
  useTitle(title)
  const session = useSession()
  const [creating, setCreating] = useState(false)
  const mayCreate = needs === undefined || session.can(needs)
  return (
    <>
      <PageHeading actions={mayCreate && <button type='button' onClick={() => setCreating(true)}>{newLabel}</button>}>{title}</PageHeading>
      {intro && <p className='muted'>{intro}</p>}
      {children}
      {creating && create(() => setCreating(false))}
    </>
  )
}
