// ISO 6166 International Securities Identification Number: 2-letter country, 9-character NSIN, 1 check digit.

const ISIN_PATTERN = /^[A-Z]{2}[A-Z0-9]{9}[0-9]$/;
const ISIN_BODY_PATTERN = /^[A-Z]{2}[A-Z0-9]{9}$/;

/** The check digit for the first 11 characters: letters become numbers (A=10 … Z=35), then Luhn over the digits. */
export function isinCheckDigit(first11: string): string {
  if (!ISIN_BODY_PATTERN.test(first11)) {
    throw new RangeError(
      `isinCheckDigit: expected 2 letters and 9 upper-case alphanumerics, got ${JSON.stringify(first11)}`,
    );
  }
  const digits = [...first11].map((char) => (char >= 'A' ? String(char.charCodeAt(0) - 55) : char)).join('');
  // Luhn: the check digit will sit to the right, so doubling starts with the rightmost digit of the body.
  let sum = 0;
  for (let i = digits.length - 1, double = true; i >= 0; i--, double = !double) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return String((10 - (sum % 10)) % 10);
}

export function isValidIsin(s: string): boolean {
  return ISIN_PATTERN.test(s) && isinCheckDigit(s.slice(0, 11)) === s[11];
}
