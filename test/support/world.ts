import { generateWorld } from '../../fixtures/generate.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { DomainError } from '../../src/api/errors.js';
import type { ClientSettings } from '../../src/api/types.js';
import { Fixtures, Tenant } from '../../src/domain/tenants.js';

/** A tenant over the seed-1 world, for domain tests without HTTP. */
export function seededTenant(settings: Partial<ClientSettings> = {}): Tenant {
  return new Tenant(
    toClientRecord({ client_id: 'unit', client_secret: 'unit', settings }),
    new Fixtures(generateWorld({ seed: 1 })),
  );
}

/** Runs `action`, expects it to throw a DomainError, and answers it. */
export function failure(action: () => unknown): DomainError {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  throw new Error('expected a DomainError');
}

export const VALID = {
  lei: '5493001KJTIIGC8Y1R12',
  iban: 'DE89370400440532013000',
  wallet: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  walletLower: '0xfb6916095ca1df60bb79ce92ce3ea74c37c5d359',
};
