import Mustache from 'mustache'
import type { StoredEvent } from '../events/events.schemas.js'

// Templates come from admins and are parsed per delivery; a global cache of them would only grow.
Mustache.templateCache = undefined

/**
 * What one rendering may cost, checked while it runs (a template's cost is the product of the
 * lists its nested sections walk: three sections over a 250-value list are 15.6 million
 * renderings, seconds on the event loop, whatever the body's final size):
 * - steps: sections entered (each list item is one) and tags rendered;
 * - characters produced by all sections together (a section's text counts once more for each
 *   section around it), so that memory stays bounded before the body's size is known;
 * - time, for what the counts cannot see (a long dotted name looked up through many sections).
 * A legitimate template (a list of variants, constraints and their values) needs a few thousand steps.
 */
export const RENDER_LIMITS = { steps: 100_000, characters: 8 * 1024 * 1024, ms: 50 }

/** A rendering that went over RENDER_LIMITS; its message is the delivery's reason. */
export class RenderTooCostly extends Error {}

/** Mustache's own writer, counting its work against RENDER_LIMITS as it goes. */
class BoundedWriter extends Mustache.Writer {
  #steps = 0
  #characters = 0
  readonly #deadline = performance.now() + RENDER_LIMITS.ms

  // Every section, every list item and the template itself are rendered through here.
  override renderTokens (...args: Parameters<Mustache.Writer['renderTokens']>): string {
    this.#steps += 1 + args[0].length
    if (this.#steps > RENDER_LIMITS.steps) throw new RenderTooCostly(`rendering takes more than ${RENDER_LIMITS.steps} steps (sections repeated inside sections over long lists)`)
    if (performance.now() > this.#deadline) throw new RenderTooCostly(`rendering takes longer than ${RENDER_LIMITS.ms} ms`)
    const text = super.renderTokens(...args)
    this.#characters += text.length
    if (this.#characters > RENDER_LIMITS.characters) throw new RenderTooCostly(`rendering produces more than ${RENDER_LIMITS.characters} characters`)
    return text
  }
}

/** Why the template cannot be parsed, or undefined when it can. */
export function templateProblem (template: string): string | undefined {
  try {
    Mustache.parse(template)
    return undefined
  } catch (error) {
    return `is not a valid Mustache template: ${(error as Error).message.split('\n')[0]}`
  }
}

/**
 * The body of a delivery: the event's JSON (as the events API shows it), or the Mustache template rendered with `event` and
 * `eventJson` (as Unleash's webhook addon renders it), within RENDER_LIMITS (RenderTooCostly beyond them).
 */
export function renderBody (event: StoredEvent, template: string | null): string {
  const eventJson = JSON.stringify(event)
  if (template === null) return eventJson
  // The template sees the event as its JSON reads (createdAt as the same ISO text).
  return new BoundedWriter().render(template, { event: JSON.parse(eventJson), eventJson })
}
