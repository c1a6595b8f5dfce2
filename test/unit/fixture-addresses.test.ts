import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { COUNTRY_LOCALES } from '../../fixtures/seeded-faker.js';

/** The regions a country's faker locale knows: its states (Länder, cantons, provinces…), Ireland's counties. */
const regionsOf = (country: string): string[] => {
  const location = COUNTRY_LOCALES[country]!.rawDefinitions.location as { state?: string[]; county?: string[] };
  return (country === 'IE' ? location.county : location.state) ?? [];
};

describe('fixture addresses', () => {
  it('put every account in a region of its own country (faker locale per country)', () => {
    for (const seed of [1, 2, 3]) {
      const { accounts } = generateWorld({ seed, scale: { accounts: 300, orders: 0 } });
      const countries = new Set(accounts.map((a) => a.country));
      expect(countries.size).toBeGreaterThan(8);
      for (const account of accounts) {
        expect(regionsOf(account.country!).length, account.country).toBeGreaterThan(3);
        expect(regionsOf(account.country!), `${account.country}: ${account.state}`).toContain(account.state);
      }
    }
  });

  it('never gives a European account a US state', () => {
    const usStates = ['Maine', 'Texas', 'California', 'Ohio', 'New York'];
    const { accounts } = generateWorld({ seed: 1, scale: { accounts: 500, orders: 0 } });
    expect(accounts.filter((a) => usStates.includes(a.state ?? ''))).toEqual([]);
  });

  it('keeps every seed deterministic: the same seed, the same addresses', () => {
    const addresses = (seed: number) =>
      generateWorld({ seed, scale: { accounts: 50, orders: 0 } }).accounts.map((a) => [
        a.country,
        a.city,
        a.line1,
        a.postal_code,
        a.state,
      ]);
    expect(addresses(7)).toEqual(addresses(7));
    expect(addresses(7)).not.toEqual(addresses(8));
  });
});
