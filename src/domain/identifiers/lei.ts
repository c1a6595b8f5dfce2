// ISO 17442 Legal Entity Identifier: 18 upper-case alphanumerics, then 2 check digits (ISO 7064 MOD 97-10).
import { mod97, mod97CheckDigits } from './mod97.js';

const LEI_PATTERN = /^[A-Z0-9]{18}[0-9]{2}$/;
const LEI_BODY_PATTERN = /^[A-Z0-9]{18}$/;

/** The two check digits that make the whole 20-character LEI ≡ 1 mod 97. */
export function leiCheckDigits(first18: string): string {
  if (!LEI_BODY_PATTERN.test(first18)) {
    throw new RangeError(`leiCheckDigits: expected 18 upper-case alphanumerics, got ${JSON.stringify(first18)}`);
  }
  return mod97CheckDigits(`${first18}00`);
}

export function isValidLei(s: string): boolean {
  return LEI_PATTERN.test(s) && mod97(s) === 1;
}
