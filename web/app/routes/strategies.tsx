import { ListScreen } from '../../components/page'
import { DefinitionDialog, DefinitionList } from '../../features/definitions/definitions'

export const StrategiesScreen = () => (
  <ListScreen title='Strategies' intro='The kinds of strategy a flag can use. Custom ones declare parameters that SDKs with a matching implementation read.' newLabel='New strategy' needs='change-flags' create={(close) => <DefinitionDialog definition={null} onClose={close} />}>
    <DefinitionList />
  </ListScreen>
)
