import type { Dimension } from '../../db/values.ts';

/*
 * Views and clicks added up in memory before they are written (link-counts.ts): one row per counter
 * they add to, keyed as the tables are, so that a thousand views of one link on one day are one row.
 */

export interface LinkRef {
  id: number;
  label_id: number;
}

export interface LinkCountRow {
  id: number;
  label_id: number;
  views: number;
  clicks: number;
}

export interface TargetCountRow {
  id: number;
  link_id: number;
  label_id: number;
  clicks: number;
}

export interface DayCountRow {
  link_id: number;
  label_id: number;
  day: string;
  views: number;
  clicks: number;
}

export interface BreakdownCountRow {
  link_id: number;
  label_id: number;
  day: string;
  dimension: Dimension;
  value: string;
  count: number;
}

export interface LabelDayCountRow {
  label_id: number;
  day: string;
  views: number;
  clicks: number;
}

export interface LabelBreakdownCountRow {
  label_id: number;
  day: string;
  dimension: Dimension;
  value: string;
  count: number;
}

/** Everything one flush adds, per table. */
export interface CountRows {
  links: LinkCountRow[];
  targets: TargetCountRow[];
  days: DayCountRow[];
  breakdowns: BreakdownCountRow[];
  labelDays: LabelDayCountRow[];
  labelBreakdowns: LabelBreakdownCountRow[];
}

/** The rows of one tally: what a label's pending counts add to the links' own tables. */
export type TallyRows = Pick<CountRows, 'links' | 'targets' | 'days' | 'breakdowns'>;

export interface Tallied {
  dimension: Dimension;
  value: string;
}

/** Adds `row`'s numeric fields to the row already under `key`, or keeps `row` as it is. */
function addRow<T extends object>(
  rows: Map<string, T>,
  key: string,
  row: T,
  fields: readonly (keyof T)[],
): void {
  const existing = rows.get(key);
  if (!existing) {
    rows.set(key, { ...row });
    return;
  }
  const sums = existing as Record<keyof T, number>;
  for (const field of fields) sums[field] += row[field] as number;
}

const dayKey = (row: { link_id: number; day: string }) => `${row.link_id}|${row.day}`;
export const breakdownKey = (row: { link_id: number; day: string; dimension: string; value: string }) =>
  `${row.link_id}|${row.day}|${row.dimension}|${row.value}`;
const labelDayKey = (row: { label_id: number; day: string }) => `${row.label_id}|${row.day}`;
export const labelBreakdownKey = (row: { label_id: number; day: string; dimension: string; value: string }) =>
  `${row.label_id}|${row.day}|${row.dimension}|${row.value}`;

/** One label's pending counts (or any number of labels', once merged for a write). */
export class Tally {
  private readonly links = new Map<string, LinkCountRow>();
  private readonly targets = new Map<string, TargetCountRow>();
  private readonly days = new Map<string, DayCountRow>();
  private readonly breakdowns = new Map<string, BreakdownCountRow>();
  /** Views and clicks added, however many rows they share. */
  increments = 0;

  addView(link: LinkRef, day: string, breakdown: readonly Tallied[]): void {
    this.addVisit(link, day, { views: 1, clicks: 0 }, breakdown);
  }

  addClick(link: LinkRef, targetId: number, day: string, platform: string): void {
    addRow(
      this.targets,
      String(targetId),
      { id: targetId, link_id: link.id, label_id: link.label_id, clicks: 1 },
      ['clicks'],
    );
    this.addVisit(link, day, { views: 0, clicks: 1 }, [{ dimension: 'platform', value: platform }]);
  }

  /** Puts `other`'s counts back into this one (a write that failed). */
  addAll(other: Tally): void {
    const { links, targets, days, breakdowns } = other.rows();
    for (const row of links) addRow(this.links, String(row.id), row, ['views', 'clicks']);
    for (const row of targets) addRow(this.targets, String(row.id), row, ['clicks']);
    for (const row of days) addRow(this.days, dayKey(row), row, ['views', 'clicks']);
    for (const row of breakdowns) addRow(this.breakdowns, breakdownKey(row), row, ['count']);
    this.increments += other.increments;
  }

  rows(): TallyRows {
    return {
      links: [...this.links.values()],
      targets: [...this.targets.values()],
      days: [...this.days.values()],
      breakdowns: [...this.breakdowns.values()],
    };
  }

  private addVisit(
    link: LinkRef,
    day: string,
    counts: { views: number; clicks: number },
    breakdown: readonly Tallied[],
  ): void {
    addRow(this.links, String(link.id), { id: link.id, label_id: link.label_id, ...counts }, [
      'views',
      'clicks',
    ]);
    const dayRow = { link_id: link.id, label_id: link.label_id, day, ...counts };
    addRow(this.days, dayKey(dayRow), dayRow, ['views', 'clicks']);
    for (const { dimension, value } of breakdown) {
      const row = { link_id: link.id, label_id: link.label_id, day, dimension, value, count: 1 };
      addRow(this.breakdowns, breakdownKey(row), row, ['count']);
    }
    this.increments += 1;
  }
}

/** Dimensions whose values come from the visitor (utm_source, a referrer, Accept-Language): bounded. */
export const CAPPED_DIMENSIONS: readonly Dimension[] = ['source', 'language'];
/** Distinct values of a capped dimension kept per link (and per label) and UTC day, besides `other`. */
export const VALUES_PER_DAY = 100;
export const OTHER = 'other';

/** A stored value of a capped dimension: `owner` is the link (or the label) it belongs to. */
export interface StoredValue {
  owner: number;
  day: string;
  dimension: Dimension;
  value: string;
}

/**
 * The rows with each capped dimension's values beyond the first VALUES_PER_DAY distinct ones of an
 * owner's day (those stored first, then new ones in the order they came) counted as `other`.
 */
export function capValues<T extends { day: string; dimension: Dimension; value: string; count: number }>(
  rows: readonly T[],
  ownerOf: (row: T) => number,
  stored: readonly StoredValue[],
  keyOf: (row: T) => string,
): T[] {
  const groupKey = (owner: number, day: string, dimension: string) => `${owner}|${day}|${dimension}`;
  const kept = new Map<string, Set<string>>();
  const keptOf = (key: string) => {
    let values = kept.get(key);
    if (!values) {
      values = new Set();
      kept.set(key, values);
    }
    return values;
  };
  for (const value of stored) {
    if (value.value !== OTHER) keptOf(groupKey(value.owner, value.day, value.dimension)).add(value.value);
  }
  const capped = new Map<string, T>();
  for (const row of rows) {
    let value = row.value;
    if (CAPPED_DIMENSIONS.includes(row.dimension) && value !== OTHER) {
      const values = keptOf(groupKey(ownerOf(row), row.day, row.dimension));
      if (values.has(value) || values.size < VALUES_PER_DAY) values.add(value);
      else value = OTHER;
    }
    const cappedRow = { ...row, value };
    addRow(capped, keyOf(cappedRow), cappedRow, ['count']);
  }
  return [...capped.values()];
}

/** The label-wide rows: the links' day and breakdown rows summed per label (before the label's cap). */
export function labelRows(
  days: readonly DayCountRow[],
  breakdowns: readonly BreakdownCountRow[],
): { labelDays: LabelDayCountRow[]; labelBreakdowns: LabelBreakdownCountRow[] } {
  const labelDays = new Map<string, LabelDayCountRow>();
  for (const { label_id, day, views, clicks } of days) {
    const row = { label_id, day, views, clicks };
    addRow(labelDays, labelDayKey(row), row, ['views', 'clicks']);
  }
  const labelBreakdowns = new Map<string, LabelBreakdownCountRow>();
  for (const { label_id, day, dimension, value, count } of breakdowns) {
    const row = { label_id, day, dimension, value, count };
    addRow(labelBreakdowns, labelBreakdownKey(row), row, ['count']);
  }
  return { labelDays: [...labelDays.values()], labelBreakdowns: [...labelBreakdowns.values()] };
}
