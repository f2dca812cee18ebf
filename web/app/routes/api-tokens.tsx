import { ListScreen } from '../../components/page'
import { ApiTokenList, NewApiToken } from '../../features/api-tokens/api-tokens'

export const ApiTokensScreen = () => (
  <ListScreen title='API tokens' intro='Tokens for SDKs and scripts. The secret is shown once, when the token is created; only its name is listed here.' newLabel='New API token' create={(close) => <NewApiToken onClose={close} />}>
    <ApiTokenList />
  </ListScreen>
)
