/**
 * Money as integers, never floating point: cents for what a label is paid, millionths of a dollar
 * (micros) for the revenue of a statement line, which sales reports give to fractions of a cent.
 */

export const MICROS_PER_CENT = 10_000;
export const BASIS_POINTS = 10_000;

/**
 * A plain decimal such as `12.5`, `-0.003421` or `7` as an integer count of 10^-`scale` units;
 * null when the text is no such number, has more than `scale` decimals or is too large to count exactly.
 */
export function parseDecimal(text: string, scale: number): number | null {
  const match = /^(-)?(\d+)(?:\.(\d+))?$/.exec(text.trim());
  const whole = match?.[2];
  if (!match || whole === undefined) return null;
  const fraction = match[3] ?? '';
  if (fraction.length > scale) return null;
  const units = Number(whole + fraction.padEnd(scale, '0'));
  if (!Number.isSafeInteger(units)) return null;
  return match[1] && units !== 0 ? -units : units;
}

/** `numerator / denominator` rounded to the nearest integer, halves away from zero. */
export function divideRounded(numerator: number, denominator: number): number {
  const quotient = Math.round(Math.abs(numerator) / denominator);
  return numerator < 0 ? -quotient : quotient;
}

export function centsOfMicros(micros: number): number {
  return divideRounded(micros, MICROS_PER_CENT);
}

/**
 * The commission on an amount at `rate` (a fraction such as 0.15), in whole cents. The rate is
 * taken to the basis point first, so 0.15 is exactly 1500/10000 and no binary fraction leaks in.
 */
export function commissionCents(amountCents: number, rate: number): number {
  return divideRounded(amountCents * rateInBasisPoints(rate), BASIS_POINTS);
}

/** A rate such as 0.15 as whole basis points (1500): the precision commissions are taken at. */
export function rateInBasisPoints(rate: number): number {
  return Math.round(rate * BASIS_POINTS);
}

/** Cents as the API's dollar number (two decimals at most). */
export function dollars(cents: number): number {
  return cents / 100;
}

/** Micros as a dollar number (six decimals at most). */
export function dollarsOfMicros(micros: number): number {
  return micros / 1_000_000;
}

/** Cents as text with two decimals, `1234.50`, for people. */
export function formatDollars(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const magnitude = Math.abs(cents);
  return `${sign}${Math.trunc(magnitude / 100)}.${String(magnitude % 100).padStart(2, '0')}`;
}
