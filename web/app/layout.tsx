import { type ReactNode, useRef } from 'react'
import { Link, useLocation } from 'wouter'
import type { Capability } from '../lib/roles'
import { useSession } from '../lib/session'

interface NavItem { href: string; label: string; needs?: Capability }

const NAV: NavItem[] = [
  { href: '/projects', label: 'Projects' },
  { href: '/segments', label: 'Segments' },
  { href: '/context', label: 'Context fields' },
  { href: '/strategies', label: 'Strategies' },
  { href: '/history', label: 'History' },
  { href: '/playground', label: 'Playground' },
  { href: '/import-export', label: 'Import/export', needs: 'change-flags' },
  { href: '/api-tokens', label: 'API tokens', needs: 'admin' },
  { href: '/webhooks', label: 'Webhooks', needs: 'admin' },
  { href: '/users', label: 'Users', needs: 'admin' },
  { href: '/groups', label: 'Groups', needs: 'admin' },
  { href: '/single-sign-on', label: 'Single sign-on', needs: 'admin' },
]

const isCurrent = (location: string, href: string) =>
  location === href || location.startsWith(`${href}/`) || (href === '/projects' && location === '/')

export function Layout ({ children }: { children: ReactNode }) {
  const [location] = useLocation()
  const session = useSession()
  const menu = useRef<HTMLDetailsElement>(null)
  return (
    <>
      <a className='skip' href='#main'>Skip to content</a>
      <header className='site'>
        <nav aria-label='Main' className='container'>
          <ul className='brand'>
            <li><Link href='/'><strong>Feature flags</strong></Link></li>
          </ul>
          <ul className='links'>
            {NAV.filter((item) => !item.needs || session.can(item.needs)).map((item) => (
              <li key={item.href}>
                <Link href={item.href} aria-current={isCurrent(location, item.href) ? 'page' : undefined}>{item.label}</Link>
              </li>
            ))}
          </ul>
          <details className='dropdown user-menu' ref={menu}>
            <summary aria-label={`Account: ${session.name}, ${session.role}`}>{session.name} <span className='role'>{session.role}</span></summary>
            <ul dir='rtl'>
              <li dir='ltr'><span>Signed in as <strong>{session.name}</strong> ({session.role})</span></li>
              <li dir='ltr'><Link href='/profile' onClick={() => menu.current?.removeAttribute('open')}>Profile and access tokens</Link></li>
              <li dir='ltr'>
                <form method='post' action='/logout'>
                  <button type='submit' className='secondary'>Sign out</button>
                </form>
              </li>
            </ul>
          </details>
        </nav>
      </header>
      <main id='main' className='container'>{children}</main>
    </>
  )
}
