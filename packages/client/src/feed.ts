import type { LabeldeskClient } from './client.ts';
import type { paths } from './schema.ts';

type EventsPage = paths['/api/v1/events']['get']['responses'][200]['content']['application/json'];

/** An event of the feed: `{id, event, created_at, data}`. */
export type FeedEvent = EventsPage['events'][number];
/** The kinds of event (`release.live`, `webhook.test`, ...). */
export type EventName = FeedEvent['event'];

export interface FeedOptions {
  /** The id of the last event processed (the stored cursor); 0 to start at the oldest event kept. */
  after: number;
  /** Only these kinds. */
  types?: readonly EventName[];
  /** Events per request (the server's default is 100, at most 200). */
  limit?: number;
  /** The wait between two requests once the feed is caught up; the API asks for about a minute. */
  intervalMs?: number;
  /** Ends the loop (the generator returns) when aborted, even in the middle of a wait or a request. */
  signal?: AbortSignal;
}

/**
 * The event feed, polled as the API describes: events in order from `after`, asking again at once while
 * the server `has_more`, and every `intervalMs` once caught up. Runs until `signal` aborts, or the
 * caller stops iterating. The cursor to store after processing an event is its `id` (the `next_after`
 * the server would give): start again with `after` = the last id stored.
 */
export async function* feed(client: LabeldeskClient, options: FeedOptions): AsyncGenerator<FeedEvent, void> {
  const { types, limit, intervalMs = 60_000, signal } = options;
  let after = options.after;
  while (!signal?.aborted) {
    let page: EventsPage;
    try {
      const query = {
        after,
        ...(types && { types: types.join(',') }),
        ...(limit !== undefined && { limit }),
      };
      page = (await client.GET('/api/v1/events', { params: { query }, ...(signal && { signal }) })).data;
    } catch (error) {
      if (signal?.aborted) return;
      throw error;
    }
    for (const event of page.events) {
      yield event;
      if (signal?.aborted) return;
    }
    after = page.next_after;
    if (!page.has_more && !(await waited(intervalMs, signal))) return;
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function waited(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
