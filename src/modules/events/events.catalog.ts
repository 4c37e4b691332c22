import type { EventKind } from '../../db/values.ts';

/** The events the service sends, with what each means (GET /webhooks/events lists them). */
export const EVENT_KINDS = {
  'release.review_pending': 'The release was submitted and waits for moderation',
  'release.approved': 'Moderation passed; the release goes to the platforms',
  'release.rejected': 'Moderation rejected the release; it is a draft again',
  'release.submitted': 'The release is at the distributor (with its UPC and ISRCs)',
  'release.dsp_status': 'The release changed stage on one platform',
  'release.live': 'The release is out on a first platform',
  'presave.signup': 'Someone signed up for a pre-save on a smart link (no address included)',
  'support.replied': 'Support answered a request made through the API',
  'webhook.test': 'A test delivery asked for from the dashboard or the API',
  'webhook.failing':
    "Another of the label's webhooks has failed 15 times in a row (sent to every other active webhook)",
} as const satisfies Record<EventKind, string>;

export function isEventKind(name: string): name is EventKind {
  return Object.hasOwn(EVENT_KINDS, name);
}
