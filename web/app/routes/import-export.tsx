import { PageHeading, useTitle } from '../../components/page'
import { Export, Import } from '../../features/import-export/import-export'

export function ImportExportScreen () {
  useTitle('Import and export')
  return (
    <>
      <PageHeading>Import and export</PageHeading>
      <p className='muted'>Move flags between instances (or from Unleash): an export holds the flags of a project with their strategies, variants, tags, context fields, segments and dependencies in one environment.</p>
      <Export />
      <Import />
    </>
  )
}
