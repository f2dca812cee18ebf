import Mustache from 'mustache'

// Templates come from admins and are parsed per delivery; a global cache of them would only grow.
Mustache.templateCache = undefined

/** An event as the events API shows it, which is the default body of a delivery. */
export interface WebhookEvent {
  id: number
  type: string
  createdAt: string
  createdBy: string
  project: string | null
  featureName: string | null
  environment?: string
  data: unknown
  preData?: unknown
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
 * The body of a delivery: the event's JSON, or the Mustache template rendered with `event` and
 * `eventJson` (as Unleash's webhook addon renders it).
 */
export function renderBody (event: WebhookEvent, template: string | null): string {
  const eventJson = JSON.stringify(event)
  if (template === null) return eventJson
  return Mustache.render(template, { event, eventJson })
}
