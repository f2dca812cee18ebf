import { Link, Redirect, Route, Switch, useLocation } from 'wouter'
import { AnnounceProvider } from './announce'
import { ErrorAlert, Loading, PageHeading, useTitle } from './components/ui'
import { Layout } from './layout'
import { FlagPage } from './pages/flag'
import { FlagList } from './pages/flags'
import { Login, SignedOut } from './pages/login'
import { Projects } from './pages/projects'
import { SessionProvider, useMe } from './session'

export function App () {
  const me = useMe()
  const [location] = useLocation()
  if (location === '/signed-out') return <AnnounceProvider><SignedOut /></AnnounceProvider>
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
            <Route><NotFound /></Route>
          </Switch>
        </Layout>
      </AnnounceProvider>
    </SessionProvider>
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
