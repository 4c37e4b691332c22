import type { Static } from 'typebox';
import type { ReleaseRow } from '../../core/releases.ts';
import { errors } from '../../errors.ts';
import { calendarDate, requireText } from '../../http/fields.ts';
import { isValidUpc } from '../../lib/gtin.ts';
import { searchKey } from '../../lib/text.ts';
import { COUNTRIES, GENRES } from '../lookups/index.ts';
import type { PatchReleaseBody } from './releases.schemas.ts';

/** A release's fields as a client sends them, checked and turned into column values. */

export function checkGenre(genre: string): string {
  if (!(GENRES as readonly string[]).includes(genre)) {
    throw errors.invalid('genre', 'genre must be one of the names listed by GET /api/v1/lookups/genres');
  }
  return genre;
}

export function checkUpc(value: string | null): string | null {
  if (value === null) return null;
  const upc = value.trim();
  if (!isValidUpc(upc)) {
    throw errors.invalid('upc', 'upc must be a 12-digit UPC-A or 13-digit EAN-13 with a correct check digit');
  }
  return upc;
}

const COUNTRY_CODES = new Set(COUNTRIES.map((country) => country.code));

/** Stored as JSON: "worldwide", or the distinct country codes in upper case. */
export function checkTerritories(value: 'worldwide' | string[]): string {
  if (value === 'worldwide') return JSON.stringify('worldwide');
  const codes = [...new Set(value.map((code) => code.trim().toUpperCase()))];
  if (codes.length === 0)
    throw errors.invalid('territories', 'territories must be "worldwide" or at least one country code');
  const unknown = codes.find((code) => !COUNTRY_CODES.has(code));
  if (unknown !== undefined) {
    throw errors.invalid('territories', `${unknown} is not an ISO 3166-1 alpha-2 country code`);
  }
  return JSON.stringify(codes);
}

export function checkFeatured(value: Array<{ name: string }>): string {
  return JSON.stringify(value.map((artist) => ({ name: requireText('featured_artists', artist.name) })));
}

/** The columns a PATCH changes, each field checked. */
export function releaseChanges(body: Static<typeof PatchReleaseBody>): Partial<ReleaseRow> {
  const changes: Partial<ReleaseRow> = {};
  if (body.title !== undefined) {
    changes.title = requireText('title', body.title);
    changes.title_key = searchKey(changes.title);
  }
  if (body.version !== undefined) changes.version = body.version?.trim() || null;
  if (body.genre !== undefined) changes.genre = checkGenre(body.genre);
  if (body.release_date !== undefined) changes.release_date = calendarDate('release_date', body.release_date);
  if (body.original_release_date !== undefined) {
    changes.original_release_date =
      body.original_release_date === null
        ? null
        : calendarDate('original_release_date', body.original_release_date);
  }
  if (body.upc !== undefined) changes.upc = checkUpc(body.upc);
  if (body.territories !== undefined) changes.territories = checkTerritories(body.territories);
  return changes;
}
