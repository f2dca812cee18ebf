import Mustache from 'mustache'
import type { StoredEvent } from '../events/events.schemas.js'

// Templates come from admins and are parsed per delivery; a global cache of them would only grow.
Mustache.templateCache = undefined

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
 * `eventJson` (as Unleash's webhook addon renders it).
 */
export function renderBody (event: StoredEvent, template: string | null): string {
  const eventJson = JSON.stringify(event)
  if (template === null) return eventJson
  // The template sees the event as its JSON reads (createdAt as the same ISO text).
  return Mustache.render(template, { event: JSON.parse(eventJson), eventJson })
}
