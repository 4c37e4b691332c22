import { errors } from '../errors.ts';
import { isCalendarDate } from '../lib/dates.ts';

/**
 * Checks of request fields that schemas cannot express, shared by every module: each throws
 * 400 `invalid` naming the field.
 */

/** The text trimmed; blank text is refused. */
export function requireText(field: string, value: string): string {
  const text = value.trim();
  if (!text) throw errors.invalid(field, `${field} must not be empty`);
  return text;
}

/** A `YYYY-MM-DD` date that exists (no 2026-02-30). */
export function calendarDate(field: string, value: string): string {
  if (!isCalendarDate(value)) throw errors.invalid(field, `${field} must be a calendar date YYYY-MM-DD`);
  return value;
}

/** An absolute http(s) address, parsed (`href` is its normalized form: spaces and non-ASCII escaped). */
export function httpUrl(field: string, value: string): URL {
  const url = URL.parse(value.trim());
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw errors.invalid(field, `${field} must be an http(s) address`);
  }
  return url;
}
