import pino, { type Logger } from 'pino';
import { redactPasswords } from './lib/redact.ts';

/** Lines are held until this much is waiting, so a busy server makes one write per batch of lines. */
const BATCH_BYTES = 4096;
/** And no line waits longer than this when the server is quiet. */
const FLUSH_EVERY_MS = 1000;

/** How long shutdown waits for the last lines when standard output does not take them. */
const FINAL_FLUSH_TIMEOUT_MS = 2000;

export interface ServerLog {
  readonly log: Logger;
  /** Writes what is waiting, including a write under way, before the process exits. */
  flush(): Promise<void>;
}

/**
 * The server's log on standard output: one JSON line per request and the faults. Written
 * asynchronously and in batches: a write per request costs the server more than most handlers.
 */
export function createServerLog(): ServerLog {
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: BATCH_BYTES,
    periodicFlush: FLUSH_EVERY_MS,
  });
  const flush = () =>
    new Promise<void>((resolve) => {
      setTimeout(resolve, FINAL_FLUSH_TIMEOUT_MS).unref();
      // An fsync error (standard output is a pipe) still means the lines were handed over.
      destination.flush(() => resolve());
    });
  return { log: pino({ level: 'info', serializers: { err: serializeError } }, destination), flush };
}

/**
 * A logged error as pino writes it, with any connection-string password hidden: a driver's error
 * (an invalid URL's `input`, a message quoting it) may carry DATABASE_URL or REDIS_URL.
 */
function serializeError(error: Error): unknown {
  const serialized = JSON.stringify(pino.stdSerializers.err(error));
  return JSON.parse(redactPasswords(serialized));
}
