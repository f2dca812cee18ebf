import { ensureUnleash } from '../helpers/unleash-install.js'

/** Installs Unleash once before the files start (they would otherwise race to install it). */
export default async function setup () {
  const started = performance.now()
  const install = await ensureUnleash((line) => console.log(line))
  console.log(`Unleash ready in ${install.dir} (${Math.round(performance.now() - started)} ms)`)
}
