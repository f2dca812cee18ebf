// One polite live region for what just happened ("Saved", "Flag created"): nothing succeeds
// or fails silently, and a screen reader hears it without losing its place.
import { createContext, type ReactNode, useCallback, useContext, useState } from 'react'
import type { AfterWrite } from '../api/write'

const AnnounceContext = createContext<(message: string) => void>(() => {})

export const useAnnounce = () => useContext(AnnounceContext)

export function AnnounceProvider ({ children }: { children: ReactNode }) {
  const [message, setMessage] = useState('')
  const announce = useCallback((next: string) => {
    // The same words twice in a row are still announced: clear first.
    setMessage('')
    setTimeout(() => setMessage(next), 30)
  }, [])
  return (
    <AnnounceContext.Provider value={announce}>
      {children}
      <div role='status' aria-live='polite' className='toast' data-empty={message === '' || undefined}>{message}</div>
    </AnnounceContext.Provider>
  )
}

/**
 * What a dialog does once its write is done (the reads it changed read again): say what
 * happened, then close. `say` words it from the answer and what was sent.
 */
export function useSayAndClose (onClose: () => void) {
  const announce = useAnnounce()
  return <V, D>(say: (data: D, variables: V) => string): AfterWrite<V, D> => ({
    onSuccess: (data, variables) => {
      announce(say(data, variables))
      onClose()
    },
  })
}
