/**
 * The form names and titles are compared in: NFC, lowercased by Unicode rules (so `Ё` matches `ё`).
 * Stored beside the text in `*_key` columns, because SQLite's own lower() only knows ASCII.
 */
export function searchKey(text: string): string {
  return text.normalize('NFC').toLowerCase();
}

/** A LIKE pattern matching text that contains `query`, with `%`, `_` and `\` taken literally. */
export function containsPattern(query: string): string {
  return `%${searchKey(query).replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
