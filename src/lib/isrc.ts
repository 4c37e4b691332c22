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
