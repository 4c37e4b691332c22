declare const holds: unique symbol;

/**
 * Text that holds the JSON of a `T`: how db/schema.ts declares a JSON column, so that `readJson`
 * gives back a `T`. Any string may be written (writers store `JSON.stringify` of a `T`).
 */
export type Json<T> = string & { readonly [holds]?: T };

/**
 * The value a JSON column holds; the one place that decodes them.
 *
 * Every JSON column is `text` on both engines (the migrations create them so, and no json/jsonb
 * column exists), so SQLite and PostgreSQL both hand back the text and there is no parsed value to
 * accept as it is.
 *
 * The value is trusted to be the declared `T`, as a `OneOf` column's word is: the writers are the
 * service's own. Text that is not JSON throws. The service writes these columns only with `JSON.stringify`, so
 * such text means the row was damaged outside it; a default in its place (worldwide territories,
 * a key without scopes, a job without its payload) would act on something the row does not say,
 * where an error answers 500 and is logged with the place that read the row.
 */
export function readJson<T>(text: Json<T>): T {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`a JSON column holds text that is not JSON (${String(error)})`, { cause: error });
  }
}

/**
 * A JSON array a query builds from rows (`jsonRows` in portable.ts), unlike the stored columns
 * above: PostgreSQL's driver hands back the parsed array, SQLite the text.
 */
export type JsonRows<T> = T[] | Json<T[]>;

export function readJsonRows<T>(value: JsonRows<T>): T[] {
  return typeof value === 'string' ? readJson(value) : value;
}
