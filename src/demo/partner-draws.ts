// The demo partner's choices, drawn from its seed: the same seed gives the same session (what it opens, when it
// cancels, which mistake it makes), whatever the timing of the answers.
import { createHash } from 'node:crypto';
import { uniform } from '../domain/investor-activity.js';

export const pick = <T>(items: readonly T[], seed: string, index: number, purpose: string): T =>
  items[Math.floor(uniform(seed, index, purpose) * items.length)]!;

/** 40 lower-case hex digits after `0x`: an address that needs no EIP-55 checksum, unique per seed and index. */
export const walletAddressOf = (seed: string, index: string): string =>
  `0x${createHash('sha256').update(`${seed}:wallet:${index}`).digest('hex').slice(0, 40)}`;

/** A German IBAN (22 characters, ISO 13616 check digits) whose 18 digits are drawn from the seed and index. */
export function ibanOf(seed: string, index: string): string {
  const digits = BigInt(`0x${createHash('sha256').update(`${seed}:iban:${index}`).digest('hex').slice(0, 16)}`)
    .toString()
    .padStart(18, '0')
    .slice(-18);
  // D = 13, E = 14, then 00 in place of the check digits
  const check = 98n - (BigInt(`${digits}131400`) % 97n);
  return `DE${String(check).padStart(2, '0')}${digits}`;
}
