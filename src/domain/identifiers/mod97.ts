/**
 * ISO 7064 MOD 97-10 remainder of an alphanumeric string, letters read as numbers (A=10 … Z=35), as IBAN and LEI
 * checks need. Folds digit by digit so no big-number arithmetic is needed.
 */
export function mod97(alphanumeric: string): number {
  let remainder = 0;
  for (const char of alphanumeric) {
    const code = char.charCodeAt(0);
    if (code >= 48 && code <= 57) {
      remainder = (remainder * 10 + (code - 48)) % 97;
    } else if (code >= 65 && code <= 90) {
      // A letter stands for two digits (10–35).
      remainder = (remainder * 100 + (code - 55)) % 97;
    } else {
      throw new RangeError(`mod97: not an upper-case alphanumeric character: ${JSON.stringify(char)}`);
    }
  }
  return remainder;
}

/** The two check digits that make `body + checkDigits` (after any rearranging the caller does) ≡ 1 mod 97. */
export function mod97CheckDigits(rearrangedWithZeroes: string): string {
  return String(98 - mod97(rearrangedWithZeroes)).padStart(2, '0');
}
