import { Link } from 'wouter'
import { seg } from '../../api/client'
import { useFlag } from '../../api/reads'
import type { FeatureDetails } from '../../api/types'
import { ErrorAlert, Loading } from '../../components/feedback'
import { PageHeading, useTitle } from '../../components/page'
import { Dependencies } from '../../features/dependencies/dependencies'
import { FlagHeader } from '../../features/flags/flag-header'
import { FlagHistory } from '../../features/history/event-list'
import { Lifecycle } from '../../features/lifecycle/lifecycle'
import { Links } from '../../features/links/links'
import { EnvironmentPanel } from '../../features/strategies/environment-panel'
import { Tags } from '../../features/tags/tags'
import { FlagUsage } from '../../features/usage/usage'
import { FlagVariants } from '../../features/variants/flag-variants'

const TABS = [
  { id: 'overview', label: 'Overview', path: '' },
  { id: 'variants', label: 'Variants', path: '/variants' },
  { id: 'history', label: 'History', path: '/history' },
]

/** A flag: its header, then one of its sections (overview, variants, history). */
export function FlagScreen ({ project, name, tab }: { project: string; name: string; tab: string }) {
  const feature = useFlag(project, name)
  const current = TABS.find((t) => t.id === tab)
  useTitle(`${name}${current && current.id !== 'overview' ? ` · ${current.label}` : ''}`)
  const base = `/projects/${seg(project)}/features/${seg(name)}`
  return (
    <>
      <p className='crumbs'><Link href='/projects'>Projects</Link> / <Link href={`/projects/${seg(project)}`}>{project}</Link> / {name}</p>
      {feature.isPending && <><PageHeading>{name}</PageHeading><Loading what='Loading the flag' /></>}
      {feature.isError && <><PageHeading>{name}</PageHeading><ErrorAlert error={feature.error} /></>}
      {feature.data && (
        <>
          <FlagHeader feature={feature.data} />
          <nav aria-label='Flag sections' className='tabs'>
            <ul>
              {TABS.map((t) => (
                <li key={t.id}><Link href={`${base}${t.path}`} aria-current={t.id === tab ? 'page' : undefined}>{t.label}</Link></li>
              ))}
            </ul>
          </nav>
          {tab === 'overview' && <Overview feature={feature.data} />}
          {tab === 'variants' && <FlagVariants feature={feature.data} />}
          {tab === 'history' && <FlagHistory feature={feature.data} />}
          {!current && <p>No such section. <Link href={base}>Back to the flag</Link>.</p>}
        </>
      )}
    </>
  )
}

function Overview ({ feature }: { feature: FeatureDetails }) {
  return (
    <>
      <Lifecycle feature={feature} />
      <section aria-labelledby='environments-heading'>
        <h2 id='environments-heading'>Environments</h2>
        {feature.environments.length === 0 && <p>This flag has no environment you may see.</p>}
        <div className='environments'>
          {feature.environments.map((env) => <EnvironmentPanel key={env.name} feature={feature} env={env} />)}
        </div>
      </section>
      <FlagUsage feature={feature} />
      <Dependencies feature={feature} />
      <Tags feature={feature} />
      <Links feature={feature} />
    </>
  )
}
