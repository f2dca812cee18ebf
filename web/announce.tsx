// One polite live region for what just happened ("Saved", "Flag created"): nothing succeeds
// or fails silently, and a screen reader hears it without losing its place.
import { createContext, type ReactNode, useCallback, useContext, useState } from 'react'

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
