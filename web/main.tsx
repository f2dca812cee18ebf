import './styles.css'
import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { ApiProblem } from './api/client'
import { keys } from './api/keys'
import { prefetchFor } from './api/reads'
import { App } from './app/app'
import { prefetchFlagList } from './features/flags/api'
import { signedOut } from './lib/session'

// A 401 anywhere means the session ended: forget who was signed in, and the sign-in screen
// shows the ways to sign in that 401 lists.
const onError = (error: unknown) => {
  if (error instanceof ApiProblem && error.status === 401) client.setQueryData(keys.me, signedOut(error))
}

const client: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError }),
  mutationCache: new MutationCache({ onError }),
  defaultOptions: {
    queries: {
      // A refusal will not change by asking again; a lost connection might.
      retry: (count, error) => count < 2 && error instanceof ApiProblem && (error.status === 0 || error.status >= 500),
      staleTime: 5_000,
    },
  },
})

prefetchFor(client, window.location.pathname)
prefetchFlagList(client, window.location.pathname, window.location.search)

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <App />
    </QueryClientProvider>
  </StrictMode>
)
