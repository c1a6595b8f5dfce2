// ISO 13616 International Bank Account Number: country, 2 check digits (MOD 97-10), country-specific BBAN.
import { mod97, mod97CheckDigits } from './mod97.js';

/** IBAN length per country: every SEPA member (EU, EEA, CH, GB, the microstates and the 2024/25 joiners). */
export const IBAN_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  AD: 24,
  AL: 28,
  AT: 20,
  BE: 16,
  BG: 22,
  CH: 21,
  CY: 28,
  CZ: 24,
  DE: 22,
  DK: 18,
  EE: 20,
  ES: 24,
  FI: 18,
  FR: 27,
  GB: 22,
  GI: 23,
  GR: 27,
  HR: 21,
  HU: 28,
  IE: 22,
  IS: 26,
  IT: 27,
  LI: 21,
  LT: 20,
  LU: 20,
  LV: 21,
  MC: 27,
  MD: 24,
  ME: 22,
  MK: 19,
  MT: 31,
  NL: 18,
  NO: 15,
  PL: 28,
  PT: 25,
  RO: 24,
  SE: 24,
  SI: 19,
  SK: 24,
  SM: 27,
  VA: 22,
});

export type IbanValidation = { ok: true; iban: string } | { ok: false; reason: string };

/** The electronic form: no spaces, upper case. */
export function normaliseIban(s: string): string {
  return s.replace(/\s+/g, '').toUpperCase();
}

/** Check digits for a country and BBAN: the BBAN, country and "00" rearranged, then 98 − (that mod 97). */
export function ibanCheckDigits(country: string, bban: string): string {
  if (!/^[A-Z]{2}$/.test(country) || !/^[A-Z0-9]+$/.test(bban)) {
    throw new RangeError(`ibanCheckDigits: bad country ${JSON.stringify(country)} or BBAN ${JSON.stringify(bban)}`);
  }
  return mod97CheckDigits(`${bban}${country}00`);
}

export function validateIban(s: string): IbanValidation {
  const iban = normaliseIban(s);
  if (iban.length === 0) return { ok: false, reason: 'IBAN is empty' };
  if (!/^[A-Z0-9]+$/.test(iban))
    return { ok: false, reason: 'IBAN has bad characters (only A-Z, 0-9 and spaces are allowed)' };
  if (!/^[A-Z]{2}[0-9]{2}/.test(iban)) {
    return { ok: false, reason: 'IBAN must start with a two-letter country code and two check digits' };
  }
  const country = iban.slice(0, 2);
  const expectedLength = IBAN_LENGTHS[country];
  if (expectedLength === undefined) return { ok: false, reason: `IBAN has an unknown country ${country}` };
  if (iban.length !== expectedLength) {
    return {
      ok: false,
      reason: `IBAN has the wrong length for country ${country} (expected ${expectedLength}, got ${iban.length})`,
    };
  }
  // Move country and check digits to the end; a valid IBAN then leaves remainder 1.
  if (mod97(iban.slice(4) + iban.slice(0, 4)) !== 1) return { ok: false, reason: 'IBAN check digits fail' };
  return { ok: true, iban };
}
