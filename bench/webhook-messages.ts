// What the webhook bench and its receiver child (bench/webhook-receiver.ts) say to each other over
// the IPC channel. The receiver runs in its own process so that answering deliveries never takes
// time from the server's event loop.

/** One delivery that reached the receiver. Only first attempts matter, but every arrival is sent. */
export interface Arrival {
  /** X-Service-Delivery-Id. */
  deliveryId: string;
  /** `data.bench_seq` of the event: which published event this delivery carries. */
  seq: number;
  /** The webhook it was addressed to: the request path. */
  path: string;
  /** `X-Service-Delivery-Id` is the body's `id`, and the body is `event`'s JSON. */
  consistent: boolean;
  /** The signature verified with the webhook's secret over `${t}.${rawBody}`. */
  signed: boolean;
  /** `Date.now()` in the receiver once the whole body had arrived. */
  at: number;
}

export type ToReceiver =
  | { type: 'listen'; cert: string; key: string }
  /** Path of each webhook to its signing secret. */
  | { type: 'secrets'; secrets: Record<string, string> };

export type FromReceiver =
  | { type: 'listening'; port: number }
  | { type: 'ready' }
  | { type: 'arrivals'; arrivals: Arrival[] };

function typeOf(message: unknown): unknown {
  return typeof message === 'object' && message !== null && 'type' in message ? message.type : undefined;
}

/** The channel is private to the two scripts, so a message is trusted once its type is known. */
export function asToReceiver(message: unknown): ToReceiver | null {
  const type = typeOf(message);
  return type === 'listen' || type === 'secrets' ? (message as ToReceiver) : null;
}

export function asFromReceiver(message: unknown): FromReceiver | null {
  const type = typeOf(message);
  return type === 'listening' || type === 'ready' || type === 'arrivals' ? (message as FromReceiver) : null;
}
