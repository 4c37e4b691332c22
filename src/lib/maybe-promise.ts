/**
 * A value that is there at once or arrives later. The per-request path uses it where the common case
 * is a cached answer: a promise per step would cost more than the step itself.
 */
export type MaybePromise<T> = T | Promise<T>;

/** `next(value)` now when the value is there, else once it arrives. */
export function chain<T, U>(value: MaybePromise<T>, next: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Runs `step(...args)` and reports to a Fastify-style callback: at once if it finished at once. */
export function settle<Args extends unknown[]>(
  done: (error?: Error) => void,
  step: (...args: Args) => MaybePromise<unknown>,
  ...args: Args
): void {
  let outcome: MaybePromise<unknown>;
  try {
    outcome = step(...args);
  } catch (error) {
    done(asError(error));
    return;
  }
  if (outcome instanceof Promise) {
    outcome.then(
      () => done(),
      (error: unknown) => done(asError(error)),
    );
  } else {
    done();
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
