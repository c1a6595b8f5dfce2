// EVM wallet addresses (Polygon): "0x" + 40 hex digits, with the EIP-55 mixed-case checksum.
import { keccak_256 } from '@noble/hashes/sha3.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

const ADDRESS_PATTERN = /^0x[0-9a-fA-F]{40}$/;

export type WalletAddressValidation = { ok: true } | { ok: false; reason: string };

/** EIP-55: upper-case each letter whose nibble in keccak256(lower-case hex digits) is 8 or more. */
export function toChecksumAddress(addr: string): string {
  if (!ADDRESS_PATTERN.test(addr)) {
    throw new RangeError(`toChecksumAddress: expected 0x and 40 hex digits, got ${JSON.stringify(addr)}`);
  }
  const lower = addr.slice(2).toLowerCase();
  const hash = keccak_256(utf8ToBytes(lower));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const nibble = (hash[i >> 1]! >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? lower[i]!.toUpperCase() : lower[i]!;
  }
  return out;
}

export function validateWalletAddress(s: string): WalletAddressValidation {
  if (!ADDRESS_PATTERN.test(s)) {
    return { ok: false, reason: 'wallet address must be 0x followed by 40 hexadecimal digits' };
  }
  const digits = s.slice(2);
  // All one case carries no checksum (EIP-55 is opt-in); mixed case must carry a correct one.
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return { ok: true };
  const expected = toChecksumAddress(s);
  if (s !== expected) return { ok: false, reason: `wallet address has a wrong EIP-55 checksum (expected ${expected})` };
  return { ok: true };
}
