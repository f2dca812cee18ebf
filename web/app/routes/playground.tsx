import { PageHeading, useTitle } from '../../components/page'
import { Playground } from '../../features/playground/playground'

export function PlaygroundScreen () {
  useTitle('Playground')
  return (
    <>
      <PageHeading>Playground</PageHeading>
      <p className='muted'>Why is a flag on or off for a user? Describe the user and their application, and read each flag's answer with every strategy, segment and constraint that decided it, evaluated as the SDKs evaluate them.</p>
      <Playground />
    </>
  )
}
