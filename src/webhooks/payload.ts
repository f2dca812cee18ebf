import Mustache from 'mustache'
import type { StoredEvent } from '../events/events.schemas.js'

// Templates come from admins and are parsed per delivery; a global cache of them would only grow.
Mustache.templateCache = undefined

/**
 * What one rendering may cost, counted while it runs (its cost is the product of the lists its
 * nested sections walk: three sections over a 250-value list are 15.6 million renderings,
 * seconds on the event loop, whatever the body's final size). Counted, not timed, so that a
 * busy machine fails no delivery a quiet one sends:
 * - steps: every section or list item rendered is one, every tag one more, and a tag's name
 *   one more per 64 characters for every section around it (a name is looked up, and split at
 *   its dots, in each enclosing section's context in turn);
 * - characters produced by all sections together (a section's text counts once more for each
 *   section around it), so that memory stays bounded before the body's size is known.
 * 100,000 steps are some tens of milliseconds; a template over a constraint's values, a
 * strategy's constraints or a feature's variants needs a few thousand.
 */
export const RENDER_LIMITS = { steps: 100_000, characters: 8 * 1024 * 1024 }

/** A rendering that went over RENDER_LIMITS; its message is the delivery's reason. */
export class RenderTooCostly extends Error {}

type Tokens = Parameters<Mustache.Writer['renderTokens']>[0]

/** Tags that look a name up (sections, inverted sections, values): their names' length, per token list. */
const lookups = new WeakMap<Tokens, number>()
function lookedUp (tokens: Tokens): number {
  let length = lookups.get(tokens)
  if (length === undefined) {
    length = 0
    for (const token of tokens) if (token[0] !== 'text' && token[0] !== '>' && token[0] !== '=' && token[0] !== '!') length += token[1]!.length
    lookups.set(tokens, length)
  }
  return length
}

/** Mustache's own writer, counting its work against RENDER_LIMITS as it goes. */
class BoundedWriter extends Mustache.Writer {
  #steps = 0
  #characters = 0
  /** How many sections enclose the tokens being rendered (the contexts a lookup may walk). */
  #depth = 0

  // Every section, every list item and the template itself are rendered through here.
  override renderTokens (...args: Parameters<Mustache.Writer['renderTokens']>): string {
    const tokens = args[0]
    this.#steps += 1 + tokens.length + Math.ceil(((this.#depth + 1) * lookedUp(tokens)) / 64)
    if (this.#steps > RENDER_LIMITS.steps) throw new RenderTooCostly(`rendering takes more than ${RENDER_LIMITS.steps} steps (sections repeated inside sections over long lists)`)
    this.#depth++
    let text: string
    try {
      text = super.renderTokens(...args)
    } finally {
      this.#depth--
    }
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
