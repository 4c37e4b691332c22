/**
 * CSV as RFC 4180 writes it: fields separated by commas, records ended by CRLF, and a field that
 * holds a comma, a double quote, CR or LF enclosed in double quotes with its quotes doubled.
 */
export type CsvValue = string | number | boolean | null;

/** Spreadsheet programs read the file as UTF-8 only when it starts with the byte-order mark. */
export const UTF8_BOM = '\uFEFF';

const NEEDS_QUOTES = /[",\r\n]/;

/** The first characters that make a spreadsheet program read a cell as a formula (OWASP, CSV Injection). */
const FORMULA_START = /^[=+\-@\t\r]/;

function quoted(text: string): string {
  return `"${text.replaceAll('"', '""')}"`;
}

/**
 * One field; null is an empty field. Text that a spreadsheet would run as a formula is written as
 * text, the way OWASP's CSV Injection page advises: a leading single quote, the field quoted. A
 * number is written as is, so a negative number stays a number; only text is neutralised.
 */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value === 'string' && FORMULA_START.test(value)) return quoted(`'${value}`);
  const text = String(value);
  return NEEDS_QUOTES.test(text) ? quoted(text) : text;
}

/** One record, CRLF included. */
export function csvRecord(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
