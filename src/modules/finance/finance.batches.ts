/** Rows per INSERT and values per IN list: far below SQLite's and PostgreSQL's limits on bound values. */
const BATCH = 500;

/** Runs `each` on consecutive slices of `items`, one slice at a time, in order. */
export async function inBatches<T>(
  items: readonly T[],
  each: (batch: T[]) => Promise<unknown>,
): Promise<void> {
  for (let start = 0; start < items.length; start += BATCH) {
    await each(items.slice(start, start + BATCH));
  }
}
