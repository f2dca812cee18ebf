import { ListScreen } from '../../components/page'
import { ContextDialog, ContextFieldList } from '../../features/context/context-fields'

export const ContextScreen = () => (
  <ListScreen title='Context fields' intro='What constraints can ask about a user or a request. SDKs fill in userId, sessionId, remoteAddress, appName, environment and currentTime; your application sends the others.' newLabel='New context field' needs='change-flags' create={(close) => <ContextDialog field={null} onClose={close} />}>
    <ContextFieldList />
  </ListScreen>
)
