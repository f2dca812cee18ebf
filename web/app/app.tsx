// The table of screens: which address shows which screen, and what a role may open. A screen
// (app/routes/) composes features; it holds little of its own.
import type { ReactNode } from 'react'
import { Redirect, Route, Switch, useLocation } from 'wouter'
import { ErrorAlert, Loading } from '../components/feedback'
import { AnnounceProvider } from '../lib/announce'
import type { Capability } from '../lib/roles'
import { SessionProvider, useMe, useSession } from '../lib/session'
import { Layout } from './layout'
import { ApiTokensScreen } from './routes/api-tokens'
import { ChangeRequestPreviewScreen, ChangeRequestScreen, ChangeRequestsScreen } from './routes/change-requests'
import { ContextScreen } from './routes/context'
import { FlagScreen } from './routes/flag'
import { FlagsScreen } from './routes/flags'
import { GroupsScreen } from './routes/groups'
import { HistoryScreen } from './routes/history'
import { ImportExportScreen } from './routes/import-export'
import { NotAllowedScreen, NotFoundScreen } from './routes/not-found'
import { PasswordLinkScreen } from './routes/password-link'
import { PlaygroundScreen } from './routes/playground'
import { ProfileScreen } from './routes/profile'
import { ProjectAccessScreen } from './routes/project-access'
import { ProjectsScreen } from './routes/projects'
import { SegmentsScreen } from './routes/segments'
import { SignedOutScreen, SignInScreen } from './routes/sign-in'
import { SingleSignOnScreen } from './routes/single-sign-on'
import { StrategiesScreen } from './routes/strategies'
import { UsersScreen } from './routes/users'
import { WebhookScreen, WebhooksScreen } from './routes/webhooks'

export function App () {
  const [location] = useLocation()
  // Signed out, nobody is asked for: the page makes no request that could only be refused.
  if (location === '/signed-out') return <AnnounceProvider><SignedOutScreen /></AnnounceProvider>
  // A link an Admin handed on works without a session (its token is the credential).
  if (location === '/reset-password' || location === '/new-user') return <AnnounceProvider><PasswordLinkScreen path={location} /></AnnounceProvider>
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
  if (!me.data.me) return <AnnounceProvider><SignInScreen hint={me.data.hint} /></AnnounceProvider>
  return (
    <SessionProvider me={me.data.me}>
      <AnnounceProvider>
        <Layout>
          <Switch>
            <Route path='/'><ProjectsScreen /></Route>
            <Route path='/login'><Redirect to='/' replace /></Route>
            <Route path='/projects'><ProjectsScreen /></Route>
            <Route path='/projects/:project'>{({ project }) => <FlagsScreen project={project} />}</Route>
            <Route path='/projects/:project/access'>{({ project }) => <Needs capability='admin'><ProjectAccessScreen project={project} /></Needs>}</Route>
            <Route path='/projects/:project/change-requests'>{({ project }) => <ChangeRequestsScreen project={project} />}</Route>
            <Route path='/projects/:project/change-requests/:id'>{({ project, id }) => <ChangeRequestScreen project={project} id={id} />}</Route>
            <Route path='/projects/:project/change-requests/:id/preview'>{({ project, id }) => <ChangeRequestPreviewScreen project={project} id={id} />}</Route>
            <Route path='/projects/:project/features/:name/:tab?'>
              {({ project, name, tab }) => <FlagScreen project={project} name={name} tab={tab ?? 'overview'} />}
            </Route>
            <Route path='/segments'><SegmentsScreen /></Route>
            <Route path='/context'><ContextScreen /></Route>
            <Route path='/strategies'><StrategiesScreen /></Route>
            <Route path='/history'><HistoryScreen /></Route>
            <Route path='/playground'><PlaygroundScreen /></Route>
            <Route path='/profile'><ProfileScreen /></Route>
            <Route path='/import-export'><Needs capability='change-flags'><ImportExportScreen /></Needs></Route>
            <Route path='/api-tokens'><Needs capability='admin'><ApiTokensScreen /></Needs></Route>
            <Route path='/webhooks'><Needs capability='admin'><WebhooksScreen /></Needs></Route>
            <Route path='/webhooks/:id'>{({ id }) => <Needs capability='admin'><WebhookScreen id={id} /></Needs>}</Route>
            <Route path='/users'><Needs capability='admin'><UsersScreen /></Needs></Route>
            <Route path='/groups'><Needs capability='admin'><GroupsScreen /></Needs></Route>
            <Route path='/single-sign-on'><Needs capability='admin'><SingleSignOnScreen /></Needs></Route>
            <Route><NotFoundScreen /></Route>
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
  return <NotAllowedScreen />
}
