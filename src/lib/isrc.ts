/**
 * ISRC (ISO 3901): country code (2 letters), registrant (3 letters or digits), year of reference
 * (2 digits), designation (5 digits). Printed as `CC-XXX-YY-NNNNN`; stored without hyphens, uppercase.
 */
const ISRC_PATTERN = /^[A-Z]{2}[A-Z0-9]{3}[0-9]{2}[0-9]{5}$/;

/** The canonical form of `input` (hyphens removed, uppercase), or null when it is not an ISRC. */
export function normalizeIsrc(input: string): string | null {
  const compact = input.trim().replaceAll('-', '').toUpperCase();
  return ISRC_PATTERN.test(compact) ? compact : null;
}

/** The largest designation code: five digits. */
export const MAX_ISRC_DESIGNATION = 99_999;

/** The ISRC of a registrant's `designation`-th recording of the reference year `year` (four digits). */
export function composeIsrc(country: string, registrant: string, year: number, designation: number): string {
  if (!Number.isInteger(designation) || designation < 1 || designation > MAX_ISRC_DESIGNATION) {
    throw new RangeError(`ISRC designation ${designation} is outside 1-${MAX_ISRC_DESIGNATION}`);
  }
  const isrc = `${country}${registrant}${String(year % 100).padStart(2, '0')}${String(designation).padStart(5, '0')}`;
  if (normalizeIsrc(isrc) !== isrc) throw new RangeError(`${isrc} is not an ISRC`);
  return isrc;
}
