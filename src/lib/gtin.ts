/** GTIN check digit (UPC-A, EAN-13): weights 3 and 1 alternate from the rightmost data digit. */
export function gtinCheckDigit(data: string): number {
  let sum = 0;
  for (let i = 0; i < data.length; i++) {
    const digit = Number(data[data.length - 1 - i]);
    sum += i % 2 === 0 ? digit * 3 : digit;
  }
  return (10 - (sum % 10)) % 10;
}

/** A 12-digit UPC-A or 13-digit EAN-13 whose last digit is the correct check digit. */
export function isValidUpc(code: string): boolean {
  if (!/^(\d{12}|\d{13})$/.test(code)) return false;
  return gtinCheckDigit(code.slice(0, -1)) === Number(code.slice(-1));
}

/** The EAN-13 made of a GS1 company prefix and an item reference, with its check digit. */
export function ean13(companyPrefix: string, itemReference: number): string {
  const referenceDigits = 12 - companyPrefix.length;
  if (!Number.isInteger(itemReference) || itemReference < 0 || itemReference >= 10 ** referenceDigits) {
    throw new RangeError(`item reference ${itemReference} does not fit in ${referenceDigits} digits`);
  }
  const data = `${companyPrefix}${String(itemReference).padStart(referenceDigits, '0')}`;
  return `${data}${gtinCheckDigit(data)}`;
}
