import { createHash } from 'node:crypto';

/**
 * The `n`th id of a sequence: a version-4-shaped UUID drawn from `seed` and `n`, so the same calls give the same ids
 * every run (docs/control-plane.md: the same seed, calls and clock moves give byte-identical answers).
 */
export function sequenceUuid(seed: string, n: number): string {
  const bytes = createHash('sha256').update(`${seed}:${n}`).digest();
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** An id of the length every `sequenceUuid` has: a record measured before its id is drawn is measured with it. */
export const UNDRAWN_ID = '00000000-0000-4000-8000-000000000000';
