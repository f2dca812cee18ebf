import type { ReactNode } from 'react'
import { Link, Redirect, Route, Switch, useLocation } from 'wouter'
import { AnnounceProvider } from './announce'
import { ErrorAlert, Loading, PageHeading, useTitle } from './components/ui'
import { Layout } from './layout'
import { ContextFields } from './pages/context'
import { Definitions } from './pages/definitions'
import { History } from './pages/events'
import { FlagPage } from './pages/flag'
import { FlagList } from './pages/flags'
import { Login, SignedOut } from './pages/login'
import { ImportExport } from './pages/import-export'
import { Profile } from './pages/profile'
import { Projects } from './pages/projects'
import { Segments } from './pages/segments'
import { ApiTokens } from './pages/tokens'
import { Users } from './pages/users'
import { WebhookPage, Webhooks } from './pages/webhooks'
import { type Capability, SessionProvider, useMe, useSession } from './session'

export function App () {
  const [location] = useLocation()
  // Signed out, nobody is asked for: the page makes no request that could only be refused.
  if (location === '/signed-out') return <AnnounceProvider><SignedOut /></AnnounceProvider>
  return <SignedIn />
}

function SignedIn () {
  const me = useMe()
  if (me.isPending) return <main className='container'><Loading /></main>
  if (me.isError) {
    return (
      <main className='container'>
        <h1>The server did not answer</h1>
        <ErrorAlert error={me.error} />
        <button type='button' onClick={() => me.refetch()}>Try again</button>
      </main>
    )
  }
  if (!me.data) return <AnnounceProvider><Login /></AnnounceProvider>
  return (
    <SessionProvider me={me.data}>
      <AnnounceProvider>
        <Layout>
          <Switch>
            <Route path='/'><Projects /></Route>
            <Route path='/login'><Redirect to='/' replace /></Route>
            <Route path='/projects'><Projects /></Route>
            <Route path='/projects/:project'>{({ project }) => <FlagList project={project} />}</Route>
            <Route path='/projects/:project/features/:name/:tab?'>
              {({ project, name, tab }) => <FlagPage project={project} name={name} tab={tab ?? 'overview'} />}
            </Route>
            <Route path='/segments'><Segments /></Route>
            <Route path='/context'><ContextFields /></Route>
            <Route path='/strategies'><Definitions /></Route>
            <Route path='/history'><History /></Route>
            <Route path='/profile'><Profile /></Route>
            <Route path='/import-export'><Needs capability='change-flags'><ImportExport /></Needs></Route>
            <Route path='/api-tokens'><Needs capability='admin'><ApiTokens /></Needs></Route>
            <Route path='/webhooks'><Needs capability='admin'><Webhooks /></Needs></Route>
            <Route path='/webhooks/:id'>{({ id }) => <Needs capability='admin'><WebhookPage id={id} /></Needs>}</Route>
            <Route path='/users'><Needs capability='admin'><Users /></Needs></Route>
            <Route><NotFound /></Route>
          </Switch>
        </Layout>
      </AnnounceProvider>
    </SessionProvider>
  )
}

/** A screen the role may not use says so, instead of offering what would be refused. */
function Needs ({ capability, children }: { capability: Capability; children: ReactNode }) {
  const session = useSession()
  if (session.can(capability)) return <>{children}</>
  return <NotAllowed />
}

function NotAllowed () {
  const session = useSession()
  useTitle('Not allowed')
  return (
    <>
      <PageHeading>Not for your role</PageHeading>
      <p>As {session.role === 'Viewer' ? 'a Viewer' : `an ${session.role}`} you can read flags but not use this screen. An admin can change your role.</p>
    </>
  )
}

function NotFound () {
  useTitle('Not found')
  return (
    <>
      <PageHeading>Nothing here</PageHeading>
      <p>This address shows no screen. <Link href='/'>Go to the projects</Link>.</p>
    </>
  )
}
