import type { ReactNode } from 'react'
import { ID_TOKEN_ALGORITHMS } from '../../../src/vocabulary/oidc'
import { ROOT_ROLES } from '../../../src/vocabulary/roles'
import type { OidcSettings } from '../../api/types'
import { ErrorAlert, errorsAt, QueryStatus } from '../../components/feedback'
import { Check, SelectField, submitting, TextField } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { useFields } from '../../lib/fields'
import { ROLE_MEANINGS } from '../../lib/labels'
import { type OidcChange, usePasswordAuth, useSaveOidcSettings, useSavePasswordAuth, useOidcSettings } from './api'

type Field = keyof OidcSettings['lockedBy']

const FIELDS = ['enabled', 'discoverUrl', 'clientId', 'autoCreate', 'defaultRootRole', 'emailDomains', 'enablePkce', 'enableSingleSignOut', 'enableGroupSyncing', 'groupJsonPath', 'addGroupsScope', 'idTokenSigningAlgorithm', 'acrValues'] as const

/** The OpenID Connect settings, once read. */
export function OidcSettingsForm () {
  const settings = useOidcSettings()
  if (!settings.data) return <QueryStatus query={settings} what='Loading the single sign-on settings' />
  return <OidcForm settings={settings.data} />
}

function OidcForm ({ settings }: { settings: OidcSettings }) {
  const announce = useAnnounce()
  const form = useFields({ ...settings, secret: '' })
  const save = useSaveOidcSettings({ onSuccess: (saved) => { form.set({ ...saved, secret: '' }); announce('Single sign-on settings saved') } })
  const v = form.values
  const locked = (field: Field) => settings.lockedBy[field]
  /** A hint, or the environment variable that fixes the field. */
  const hint = (field: Field, text?: ReactNode) => (locked(field) ? <>Set by the environment variable <code>{locked(field)}</code></> : text)
  const text = (field: Field & keyof typeof v, label: string, help?: ReactNode, extra: Record<string, unknown> = {}) => (
    <TextField label={label} value={String(v[field])} onChange={(value) => form.set({ [field]: value })} disabled={locked(field) !== undefined} hint={hint(field, help)} errors={errorsAt(save.error, `/${field}`)} autoComplete='off' {...extra} />
  )
  const check = (field: Field & keyof typeof v, label: string, help?: ReactNode) => (
    <Check label={label} checked={v[field] === true} onChange={(on) => form.set({ [field]: on })} disabled={locked(field) !== undefined} hint={hint(field, help)} />
  )
  const submit = () => {
    // Only what the environment does not fix (the API refuses those with 409); the secret when typed.
    const change: OidcChange = Object.fromEntries(FIELDS.filter((f) => locked(f) === undefined).map((f) => [f, v[f]]))
    if (v.secret !== '' && locked('secret') === undefined) change.secret = v.secret
    save.mutate(change)
  }
  return (
    <form onSubmit={submitting(submit)} noValidate aria-labelledby='oidc-heading' className='narrow-form'>
      <h2 id='oidc-heading'>OpenID Connect</h2>
      <p>People sign in with the company's identity provider (Keycloak, Entra ID, Okta, Google…). Register this server there with the callback address <code>{`${window.location.origin}/auth/oidc/callback`}</code>.</p>
      {check('enabled', 'Sign in with OpenID Connect', 'Saving with this on checks that the provider answers')}
      {text('discoverUrl', 'Discovery URL', 'The provider\'s …/.well-known/openid-configuration', { type: 'url', inputMode: 'url' })}
      {text('clientId', 'Client ID')}
      <TextField
        label='Client secret' type='password' value={v.secret} onChange={(secret) => form.set({ secret })} autoComplete='new-password'
        disabled={locked('secret') !== undefined} errors={errorsAt(save.error, '/secret')}
        hint={hint('secret', settings.secret ? 'A secret is stored; leave this empty to keep it' : 'Never shown again once saved')}
      />
      {check('autoCreate', 'Create people at their first sign-in')}
      <SelectField
        label='Role of people created at sign-in' value={v.defaultRootRole} onChange={(role) => form.set({ defaultRootRole: role as OidcSettings['defaultRootRole'] })}
        options={[...ROOT_ROLES].reverse().map((role) => ({ value: role, label: `${role} — ${ROLE_MEANINGS[role]}` }))}
        disabled={locked('defaultRootRole') !== undefined} hint={hint('defaultRootRole')} errors={errorsAt(save.error, '/defaultRootRole')}
      />
      {text('emailDomains', 'Allowed email domains', 'Comma-separated, e.g. example.com,example.org; empty: any')}
      {check('enablePkce', 'Use PKCE', 'A code challenge with each sign-in (S256)')}
      {check('enableSingleSignOut', 'Sign out at the provider too')}
      {check('enableGroupSyncing', 'Sync groups at every sign-in', 'People join the groups whose SSO names the provider lists for them')}
      {text('groupJsonPath', 'Where the groups are in the ID token', 'e.g. groups or realm_access.roles')}
      {check('addGroupsScope', 'Ask for the groups scope')}
      <SelectField
        label='ID token signing algorithm' value={v.idTokenSigningAlgorithm} onChange={(a) => form.set({ idTokenSigningAlgorithm: a as OidcSettings['idTokenSigningAlgorithm'] })}
        options={ID_TOKEN_ALGORITHMS.map((a) => ({ value: a, label: a }))}
        disabled={locked('idTokenSigningAlgorithm') !== undefined} hint={hint('idTokenSigningAlgorithm')} errors={errorsAt(save.error, '/idTokenSigningAlgorithm')}
      />
      {text('acrValues', 'ACR values', 'Sent to the provider, separated by spaces (optional)')}
      {save.isError && <ErrorAlert error={save.error} shownAt={[...FIELDS, 'secret'].map((f) => `/${f}`)} />}
      <button type='submit' aria-busy={save.isPending || undefined} disabled={save.isPending}>Save single sign-on settings</button>
    </form>
  )
}

/** Password sign-in on or off (off only while single sign-on is on). */
export function PasswordSignIn () {
  const announce = useAnnounce()
  const current = usePasswordAuth()
  const save = useSavePasswordAuth({ onSuccess: (saved) => announce(saved.disabled ? 'Password sign-in turned off' : 'Password sign-in turned on') })
  if (!current.data) return <QueryStatus query={current} what='Loading the password sign-in setting' />
  const disabled = current.data.disabled
  return (
    <section aria-labelledby='password-heading' className='narrow-form'>
      <h2 id='password-heading'>Password sign-in</h2>
      <p>{disabled ? 'Off: people sign in with single sign-on. The administrator set by UNLEASH_DEFAULT_ADMIN_USERNAME can still use a password.' : 'On: people may sign in with a password.'}</p>
      {save.isError && <ErrorAlert error={save.error} />}
      <button type='button' className='secondary' aria-busy={save.isPending || undefined} disabled={save.isPending} onClick={() => save.mutate({ disabled: !disabled })}>
        {disabled ? 'Turn password sign-in on' : 'Turn password sign-in off'}
      </button>
    </section>
  )
}
