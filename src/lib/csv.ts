/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, and a field that
 * holds a comma, a double quote, CR or LF enclosed in double quotes with its quotes doubled.
 */
export type CsvValue = string | number | boolean | null;

/** Spreadsheet programs read the file as UTF-8 only when it starts with the byte-order mark. */
export const UTF8_BOM = '\uFEFF';

const NEEDS_QUOTES = /[",\r\n]/;

/** One field; null is an empty field. */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** One record, CRLF included. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
