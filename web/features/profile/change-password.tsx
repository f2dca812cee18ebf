import { useState } from 'react'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { submitting, TextField } from '../../components/form'
import { useAnnounce } from '../../lib/announce'
import { useChangePassword } from './api'

/** Changes the signed-in person's password (the current one first). */
export function ChangePassword () {
  const announce = useAnnounce()
  const [oldPassword, setOldPassword] = useState('')
  const [password, setPassword] = useState('')
  const [confirmPassword, setConfirmPassword] = useState('')
  const change = useChangePassword({
    onSuccess: () => {
      setOldPassword('')
      setPassword('')
      setConfirmPassword('')
      announce('Password changed')
    },
  })
  const mismatch = confirmPassword !== '' && confirmPassword !== password
  const submit = submitting(() => !mismatch && change.mutate({ oldPassword, password, confirmPassword }))
  return (
    <section aria-labelledby='password-heading'>
      <h2 id='password-heading'>Change password</h2>
      <form onSubmit={submit} className='narrow-form'>
        <TextField label='Current password' type='password' value={oldPassword} onChange={setOldPassword} autoComplete='current-password' required errors={errorsAt(change.error, '/oldPassword')} />
        <TextField label='New password' type='password' value={password} onChange={setPassword} autoComplete='new-password' required errors={errorsAt(change.error, '/password')} />
        <TextField label='New password again' type='password' value={confirmPassword} onChange={setConfirmPassword} autoComplete='new-password' required errors={mismatch ? ['The two new passwords differ.'] : errorsAt(change.error, '/confirmPassword')} />
        <ErrorAlert error={change.error} shownAt={['/oldPassword', '/password', '/confirmPassword']} />
        <button type='submit' disabled={mismatch} aria-busy={change.isPending || undefined}>Change password</button>
      </form>
    </section>
  )
}
