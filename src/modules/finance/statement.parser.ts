import { CsvError, parse } from 'csv-parse/sync';
import { errors } from '../../errors.ts';
import { isMonth } from '../../lib/dates.ts';
import { isValidUpc } from '../../lib/gtin.ts';
import { normalizeIsrc } from '../../lib/isrc.ts';
import { parseDecimal } from '../../lib/money.ts';
import { COUNTRIES } from '../lookups/index.ts';
import { PLATFORMS } from '../platforms/index.ts';

/**
 * A distributor's sales report: CSV with a header row naming the columns below (in any order,
 * any case; other columns are ignored), one line per release or track, platform, country and month.
 */
export const STATEMENT_COLUMNS = ['period', 'upc', 'isrc', 'dsp', 'country', 'quantity', 'revenue'] as const;
type Column = (typeof STATEMENT_COLUMNS)[number];

/** Revenue is given to the millionth of a dollar at most. */
export const REVENUE_SCALE = 6;

export interface StatementLine {
  /** Line of the file the record ends on (the header is line 1). */
  readonly line: number;
  /** `YYYY-MM`. */
  readonly period: string;
  readonly upc: string | null;
  readonly isrc: string | null;
  /** A platform key (`apple_music`) when the name is one we know, else the name in lower case. */
  readonly dsp: string;
  /** ISO 3166-1 alpha-2, upper case. */
  readonly country: string;
  readonly quantity: number;
  readonly revenueMicros: number;
}

const COUNTRY_CODES = new Set(COUNTRIES.map((country) => country.code));
const MAX_DSP_LENGTH = 64;
const CONTROL_CHARACTER = /\p{Cc}/u;

/**
 * Bounds far above any real sales line, low enough that the sums of a statement, of a label's
 * months and of its platforms stay exact integers.
 */
const MAX_QUANTITY = 1_000_000_000_000;
const MAX_REVENUE_MICROS = 1_000_000_000 * 1_000_000;

function platformToken(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

const PLATFORM_BY_TOKEN = new Map(
  PLATFORMS.flatMap((platform) => [
    [platform.key, platform.key],
    [platformToken(platform.name), platform.key],
  ]),
);

/** Refuses the whole file: the operator sees the line, the column and why. */
function refuse(line: number, column: string, reason: string): never {
  throw errors.invalid(column, `line ${line}: ${reason}`, { line });
}

type Cells = Record<Column, string>;

function columnPositions(header: readonly string[]): Record<Column, number> {
  const names = header.map((name) => name.trim().toLowerCase());
  const positions = {} as Record<Column, number>;
  for (const column of STATEMENT_COLUMNS) {
    const position = names.indexOf(column);
    if (position < 0) {
      refuse(1, column, `the header has no "${column}" column (expected ${STATEMENT_COLUMNS.join(', ')})`);
    }
    if (names.lastIndexOf(column) !== position) refuse(1, column, `the header names "${column}" twice`);
    positions[column] = position;
  }
  return positions;
}

function parsePeriod(line: number, value: string): string {
  if (!isMonth(value)) refuse(line, 'period', `period "${value}" is not a month YYYY-MM`);
  return value;
}

function parseUpc(line: number, value: string): string | null {
  if (value === '') return null;
  if (!isValidUpc(value)) refuse(line, 'upc', `upc "${value}" is not a UPC or EAN with a valid check digit`);
  return value;
}

function parseIsrc(line: number, value: string): string | null {
  if (value === '') return null;
  const isrc = normalizeIsrc(value);
  if (isrc === null) refuse(line, 'isrc', `isrc "${value}" is not an ISRC`);
  return isrc;
}

/** How lines name a platform: its key when it is one we know (`Apple Music` is `apple_music`), else the name in lower case. */
export function dspKey(name: string): string {
  const token = platformToken(name);
  return PLATFORM_BY_TOKEN.get(token) ?? token;
}

function parseDsp(line: number, value: string): string {
  const key = dspKey(value);
  if (key === '' || key.length > MAX_DSP_LENGTH) {
    refuse(line, 'dsp', `dsp must name the platform in 1 to ${MAX_DSP_LENGTH} characters`);
  }
  if (CONTROL_CHARACTER.test(key)) refuse(line, 'dsp', 'dsp must not hold control characters');
  return key;
}

function parseCountry(line: number, value: string): string {
  const code = value.toUpperCase();
  if (!COUNTRY_CODES.has(code))
    refuse(line, 'country', `country "${value}" is not an ISO 3166-1 alpha-2 code`);
  return code;
}

function parseQuantity(line: number, value: string): number {
  const quantity = parseDecimal(value, 0);
  if (quantity === null) refuse(line, 'quantity', `quantity "${value}" is not a whole number`);
  if (Math.abs(quantity) > MAX_QUANTITY)
    refuse(line, 'quantity', `quantity ${value} is beyond ${MAX_QUANTITY}`);
  return quantity;
}

function parseRevenue(line: number, value: string): number {
  const micros = parseDecimal(value, REVENUE_SCALE);
  if (micros === null) {
    refuse(
      line,
      'revenue',
      `revenue "${value}" is not an amount in dollars with at most ${REVENUE_SCALE} decimals`,
    );
  }
  if (Math.abs(micros) > MAX_REVENUE_MICROS) {
    refuse(line, 'revenue', `revenue ${value} is beyond ${MAX_REVENUE_MICROS / 1_000_000} dollars`);
  }
  return micros;
}

function statementLine(line: number, cells: Cells): StatementLine {
  const upc = parseUpc(line, cells.upc);
  const isrc = parseIsrc(line, cells.isrc);
  if (upc === null && isrc === null) refuse(line, 'upc', 'the line has neither a upc nor an isrc');
  return {
    line,
    period: parsePeriod(line, cells.period),
    upc,
    isrc,
    dsp: parseDsp(line, cells.dsp),
    country: parseCountry(line, cells.country),
    quantity: parseQuantity(line, cells.quantity),
    revenueMicros: parseRevenue(line, cells.revenue),
  };
}

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

function records(text: string): ParsedRecord[] {
  try {
    // With `info: true` each record comes with where it ends; csv-parse's types do not model that option.
    const parsed: unknown = parse(text, { bom: true, trim: true, skip_empty_lines: true, info: true });
    return parsed as ParsedRecord[];
  } catch (error) {
    if (error instanceof CsvError) {
      const line = typeof error.lines === 'number' ? error.lines : 0;
      refuse(line, 'file', `not readable as CSV (${error.message})`);
    }
    throw error;
  }
}

/** Sums of the statement are counted in integers: refused when they could no longer be exact. */
function assertExactSums(lines: readonly StatementLine[]): void {
  let quantity = 0;
  let micros = 0;
  for (const line of lines) {
    quantity += Math.abs(line.quantity);
    micros += Math.abs(line.revenueMicros);
    if (!Number.isSafeInteger(quantity) || !Number.isSafeInteger(micros)) {
      refuse(line.line, 'file', 'the statement adds up to more than can be counted exactly: split it');
    }
  }
}

/** Every line of the statement, or 400 `invalid` naming the first bad line: nothing is half-read. */
export function parseStatement(text: string): StatementLine[] {
  const [header, ...rows] = records(text);
  if (!header) refuse(1, 'file', 'the file is empty');
  const positions = columnPositions(header.record);
  const lines = rows.map(({ record, info }) => {
    const cells = Object.fromEntries(
      STATEMENT_COLUMNS.map((column) => [column, record[positions[column]] ?? '']),
    ) as Cells;
    return statementLine(info.lines, cells);
  });
  if (lines.length === 0) refuse(2, 'file', 'the statement has a header but no lines');
  assertExactSums(lines);
  return lines;
}
