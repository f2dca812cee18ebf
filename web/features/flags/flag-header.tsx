import { useState } from 'react'
import { isPotentiallyStale } from '../../../src/vocabulary/staleness'
import { useFeatureTypes } from '../../api/reads'
import type { FeatureDetails } from '../../api/types'
import { Confirm, FormDialog } from '../../components/dialog'
import { ErrorAlert, errorsAt } from '../../components/feedback'
import { Check, SelectField, TextArea } from '../../components/form'
import { PageHeading } from '../../components/page'
import { useAnnounce, useSayAndClose } from '../../lib/announce'
import { FLAG_TYPE_OPTIONS, flagTypeLabel, STAGE_LABELS } from '../../lib/labels'
import { useSession } from '../../lib/session'
import { useArchiveFlag, useMarkStale, useReviveFlag, useSaveSettings } from './api'

/** A flag's name, type, stage and description, with what may be done to the flag as a whole. */
export function FlagHeader ({ feature }: { feature: FeatureDetails }) {
  const session = useSession()
  const announce = useAnnounce()
  const [confirming, setConfirming] = useState(false)
  const [editing, setEditing] = useState(false)
  const archived = feature.lifecycle.stage === 'archived'
  const archive = useArchiveFlag(feature, {
    onSuccess: () => {
      setConfirming(false)
      announce(`${feature.name} archived`)
    },
  })
  const revive = useReviveFlag(feature, { onSuccess: () => announce(`${feature.name} revived`) })
  const markStale = useMarkStale(feature, { onSuccess: (_, stale) => announce(stale ? `${feature.name} marked stale` : `${feature.name} no longer marked stale`) })
  const types = useFeatureTypes()
  const lifetime = types.data?.find((t) => t.id === feature.type)?.lifetimeDays ?? null
  const potentially = types.data !== undefined && isPotentiallyStale({ stale: feature.stale, createdAt: new Date(feature.createdAt), lifetimeDays: lifetime }, new Date())
  const actions = session.can('change-flags', feature.project) && (
    archived
      ? <button type='button' onClick={() => revive.mutate()} aria-busy={revive.isPending || undefined}>Revive</button>
      : (
        <>
          <button type='button' className='secondary outline' onClick={() => markStale.mutate(!feature.stale)} aria-busy={markStale.isPending || undefined}>
            {feature.stale ? 'Mark as not stale' : 'Mark as stale'}
          </button>
          <button type='button' className='secondary outline' onClick={() => setEditing(true)}>Edit settings</button>
          <button type='button' className='secondary outline' onClick={() => setConfirming(true)}>Archive</button>
        </>
        )
  )
  return (
    <header className='flag-header'>
      <PageHeading actions={actions}>{feature.name}</PageHeading>
      <p className='facts'>
        <span className='badge'>{flagTypeLabel(feature.type)}</span>
        <span className={`badge stage-${feature.lifecycle.stage}`}>Stage: {STAGE_LABELS[feature.lifecycle.stage]}</span>
        {feature.stale && <span className='badge stale'>Stale</span>}
        {potentially && <span className='badge potentially-stale' title={`Older than ${lifetime} days, what a ${flagTypeLabel(feature.type).toLowerCase()} flag is expected to live`}>Potentially stale</span>}
        {feature.description && <span>{feature.description}</span>}
      </p>
      {archived && <p className='alert warning'>This flag is archived: SDKs no longer receive it. Revive it to use it again.</p>}
      <ErrorAlert error={revive.error ?? markStale.error} />
      {editing && <SettingsDialog feature={feature} onClose={() => setEditing(false)} />}
      <Confirm
        title={`Archive ${feature.name}?`}
        open={confirming}
        onClose={() => setConfirming(false)}
        onConfirm={() => archive.mutate()}
        confirmLabel='Archive'
        busy={archive.isPending}
        error={archive.error}
      >
        <p>SDKs stop receiving the flag, so code that still asks for it gets its default. You can revive it later.</p>
      </Confirm>
    </header>
  )
}

function SettingsDialog ({ feature, onClose }: { feature: FeatureDetails; onClose: () => void }) {
  const done = useSayAndClose(onClose)
  const [description, setDescription] = useState(feature.description ?? '')
  const [type, setType] = useState(feature.type)
  const [impressionData, setImpressionData] = useState(feature.impressionData)
  const save = useSaveSettings(feature, done(() => 'Settings saved'))
  // A type the list does not know (set through the API) stays choosable.
  const types = FLAG_TYPE_OPTIONS.some((t) => t.value === type) ? FLAG_TYPE_OPTIONS : [...FLAG_TYPE_OPTIONS, { value: type, label: type }]
  return (
    <FormDialog
      title={`Settings of ${feature.name}`}
      onClose={onClose}
      onSubmit={() => save.mutate({ description: description || null, type, impressionData })}
      write={save}
      shownAt={['/description', '/type']}
    >
      <TextArea label='Description' value={description} onChange={setDescription} errors={errorsAt(save.error, '/description')} />
      <SelectField label='Type' value={type} onChange={setType} options={types} errors={errorsAt(save.error, '/type')} />
      <Check label='Impression data' hint='SDKs emit an impression event each time they evaluate the flag' checked={impressionData} onChange={setImpressionData} />
    </FormDialog>
  )
}
