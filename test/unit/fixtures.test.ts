import { describe, expect, it } from 'vitest';
import { REFERENCE_DATE, generateWorld } from '../../fixtures/generate.js';
import { validateIban } from '../../src/domain/identifiers/iban.js';
import { isValidIsin } from '../../src/domain/identifiers/isin.js';
import { isValidLei } from '../../src/domain/identifiers/lei.js';
import { toChecksumAddress, validateWalletAddress } from '../../src/domain/identifiers/wallet-address.js';
import { PLATFORM_PAYMENT_DETAILS } from '../../src/domain/platform.js';
import type { Account, OrderRecord, World } from '../../src/api/types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/; // version 4
const REF_MS = Date.parse(REFERENCE_DATE);
const TWO_YEARS_MS = 2 * 366 * 86_400_000;
const FEE_FIELDS = [
  'management_fee',
  'administration_fee',
  'servicing_fee',
  'subscription_fee',
  'redemption_fee',
  'depositary_fee',
  'target_return_net',
] as const;
const INDIVIDUAL_ONLY = [
  'first_name',
  'last_name',
  'dob_day',
  'dob_month',
  'dob_year',
  'place_of_birth',
  'tin',
] as const;
const BUSINESS_ONLY = ['business_name', 'lei', 'tax_id'] as const;
const ADDRESS_FIELDS = ['country', 'city', 'line1', 'postal_code', 'state'] as const;
const STATUSES = ['PLACED', 'AWAITING_PAYMENT', 'AWAITING_TOKEN_DELIVERY', 'COMPLETED', 'CANCELLED'];

const byId = <T extends { id: string }>(items: T[]): Map<string, T> => new Map(items.map((item) => [item.id, item]));
const holderName = (account: Account): string | undefined =>
  account.type === 'business' ? account.business_name : `${account.first_name} ${account.last_name}`;

/** Which lifecycle side effects an order in this status must show. */
function expectedProgress(order: OrderRecord): { paid: boolean; settled: boolean } {
  const { side, status } = order;
  if (status === 'COMPLETED') return { paid: true, settled: true };
  if (status === 'CANCELLED' || status === 'PLACED') return { paid: false, settled: false };
  if (side === 'BUY') return { paid: status === 'AWAITING_TOKEN_DELIVERY', settled: false };
  return { paid: false, settled: status === 'AWAITING_PAYMENT' };
}

describe('generateWorld determinism', () => {
  it('gives the same world, byte for byte, for the same seed', () => {
    expect(JSON.stringify(generateWorld({ seed: 1 }))).toBe(JSON.stringify(generateWorld({ seed: 1 })));
    expect(JSON.stringify(generateWorld({ seed: 7, scale: { accounts: 50, orders: 200 } }))).toBe(
      JSON.stringify(generateWorld({ seed: 7, scale: { accounts: 50, orders: 200 } })),
    );
  });

  it('gives another world, ids included, for another seed', () => {
    const one = generateWorld({ seed: 1 });
    const two = generateWorld({ seed: 2 });
    expect(JSON.stringify(two)).not.toBe(JSON.stringify(one));
    const oneIds = new Set(one.accounts.map((account) => account.id));
    expect(two.accounts.some((account) => oneIds.has(account.id))).toBe(false);
  });

  it('does not depend on the clock', () => {
    const before = JSON.stringify(generateWorld({ seed: 3 }));
    const realNow = Date.now;
    Date.now = () => realNow() + 1e11;
    try {
      expect(JSON.stringify(generateWorld({ seed: 3 }))).toBe(before);
    } finally {
      Date.now = realNow;
    }
  });

  it('rejects a nonsensical scale', () => {
    expect(() => generateWorld({ seed: 1, scale: { accounts: -1 } })).toThrow(RangeError);
    expect(() => generateWorld({ seed: 1, scale: { orders: 1.5 } })).toThrow(RangeError);
  });
});

describe('generateWorld scale', () => {
  it('has the default counts', () => {
    const world = generateWorld({ seed: 1 });
    expect(world.accounts).toHaveLength(10);
    expect(world.orders).toHaveLength(30);
  });

  it('follows scale overrides', () => {
    const world = generateWorld({ seed: 1, scale: { accounts: 25, orders: 40 } });
    expect(world.accounts).toHaveLength(25);
    expect(world.orders).toHaveLength(40);
  });
});

describe.each([1, 2, 42, 2026])('the world of seed %i', (seed) => {
  const world: World = generateWorld({ seed });
  const feederFunds = byId(world.feeder_funds);
  const shareClasses = byId(world.share_classes);
  const assets = byId(world.assets);
  const offerings = byId(world.custom_offerings);
  const accounts = byId(world.accounts);

  it('meets the minimum counts', () => {
    expect(world.feeder_funds.length).toBeGreaterThanOrEqual(3);
    expect(world.share_classes.length).toBeGreaterThanOrEqual(6);
    expect(world.assets.length).toBeGreaterThanOrEqual(8);
    expect(world.custom_offerings.length).toBeGreaterThanOrEqual(1);
    expect(world.accounts.length).toBeGreaterThanOrEqual(10);
    expect(world.orders.length).toBeGreaterThanOrEqual(20);
  });

  it('uses unique uuids for every item', () => {
    const ids = Object.values(world).flatMap((items: { id: string }[]) => items.map((item) => item.id));
    for (const id of ids) expect(id).toMatch(UUID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('has no undefined or null where a field is merely absent', () => {
    expect(JSON.parse(JSON.stringify(world))).toEqual(world);
    for (const account of world.accounts) {
      for (const [key, value] of Object.entries(account)) expect(value, key).not.toBeNull();
    }
  });

  it('gives feeder funds unique abbreviations and 2+ documents each', () => {
    const abbreviations = world.feeder_funds.map((fund) => fund.abbreviation);
    for (const abbreviation of abbreviations) expect(abbreviation).toMatch(/^[A-Z]{3,5}$/);
    expect(new Set(abbreviations).size).toBe(abbreviations.length);
    for (const fund of world.feeder_funds) {
      const documents = world.documents.filter((document) => document.feeder_fund_id === fund.id);
      expect(documents.length).toBeGreaterThanOrEqual(2);
      for (const document of documents) {
        expect(document).toMatchObject({ type: 'FEEDER_FUND', custom_offering_id: null });
        expect(document.title.length).toBeGreaterThan(0);
      }
    }
  });

  it('links every document to exactly one existing fund or offering', () => {
    for (const document of world.documents) {
      if (document.type === 'FEEDER_FUND') {
        expect(feederFunds.has(document.feeder_fund_id!)).toBe(true);
        expect(document.custom_offering_id).toBeNull();
      } else {
        expect(document.type).toBe('CUSTOM_OFFERING');
        expect(offerings.has(document.custom_offering_id!)).toBe(true);
        expect(document.feeder_fund_id).toBeNull();
      }
    }
  });

  it('gives share classes every fee field, some null, and consistent redemption and lock-up fields', () => {
    const fees = world.share_classes.flatMap((shareClass) => FEE_FIELDS.map((field) => shareClass[field]));
    expect(fees).not.toContain(undefined);
    expect(fees).toContain(null);
    expect(fees.filter((fee) => fee !== null).length).toBeGreaterThan(fees.length / 2);
    expect(
      world.share_classes.some((shareClass) => FEE_FIELDS.filter((field) => shareClass[field] === null).length >= 3),
    ).toBe(true);

    const abbreviations = world.share_classes.map((shareClass) => shareClass.abbreviation);
    expect(new Set(abbreviations).size).toBe(abbreviations.length);
    const minInvestments = world.share_classes.map((shareClass) => shareClass.min_investment);
    expect(minInvestments).toContain(null);
    expect(minInvestments.some((value) => value !== null)).toBe(true);
    const cycles = world.share_classes.map((shareClass) => shareClass.redemption_cycle);
    expect(cycles).toContain('none');
    expect(cycles).toContain(null);

    for (const shareClass of world.share_classes) {
      expect(feederFunds.has(shareClass.feeder_fund_id)).toBe(true);
      for (const field of FEE_FIELDS) {
        const fee = shareClass[field];
        if (fee !== null) expect(fee >= 0 && fee < 1).toBe(true);
      }
      if (shareClass.min_investment !== null) expect(Number.isInteger(shareClass.min_investment)).toBe(true);
      expect(Number.isInteger(shareClass.lock_up)).toBe(true);
      expect(shareClass.lock_up_duration).toBe(shareClass.lock_up === 0 ? null : `${shareClass.lock_up} months`);
      expect(shareClass.redemption_window).toMatch(/^[a-z-]+$/);
      expect(['daily', 'weekly', 'monthly', 'quarterly', 'annually', 'none', null]).toContain(
        shareClass.redemption_cycle,
      );
      if (shareClass.redemption_cycle !== null) expect(shareClass.redemption_cycle).toBe(shareClass.redemption_window);
      if (shareClass.redemption_cycle === 'none') expect(shareClass.next_redemption_date).toBeNull();
      if (shareClass.next_redemption_date !== null) {
        expect(new Date(shareClass.next_redemption_date).toISOString()).toBe(shareClass.next_redemption_date);
        expect(Date.parse(shareClass.next_redemption_date)).toBeGreaterThan(REF_MS);
      }
    }
  });

  it('covers every flag combination and 2+ currencies with valid, unique ISINs', () => {
    const combinations = new Set(
      world.assets.map((asset) => `${asset.subscribeable}/${asset.redeemable}/${asset.tradeable}`),
    );
    expect(combinations.size).toBe(8);
    expect(new Set(world.assets.map((asset) => asset.currency)).size).toBeGreaterThanOrEqual(2);
    for (const asset of world.assets) {
      expect(isValidIsin(asset.isin), asset.isin).toBe(true);
      expect(asset.currency).toMatch(/^[A-Z]{3}$/);
      expect(shareClasses.has(asset.share_class_id)).toBe(true);
    }
    expect(new Set(world.assets.map((asset) => asset.isin)).size).toBe(world.assets.length);
  });

  it('attaches custom offerings to assets, each with 1–2 documents', () => {
    for (const offering of world.custom_offerings) {
      expect(assets.has(offering.asset_id)).toBe(true);
      expect(offering.name.length).toBeGreaterThan(0);
      const documents = world.documents.filter((document) => document.custom_offering_id === offering.id);
      expect(documents.length).toBeGreaterThanOrEqual(1);
      expect(documents.length).toBeLessThanOrEqual(2);
      for (const document of documents) expect(document.type).toBe('CUSTOM_OFFERING');
    }
  });

  it('has both account types, each with only its own fields', () => {
    expect(new Set(world.accounts.map((account) => account.type))).toEqual(new Set(['individual', 'business']));
    expect(world.accounts.filter((account) => account.external_id !== undefined).length).toBeGreaterThan(
      world.accounts.length / 2,
    );
    for (const account of world.accounts) {
      if (account.external_id !== undefined) expect(account.external_id).toMatch(/^user_\d+$/);
      for (const field of ADDRESS_FIELDS) expect(typeof account[field], field).toBe('string');
      expect(account.country).toMatch(/^[A-Z]{2}$/);
      expect(account.tax_residencies).toMatch(/^[A-Z]{2}$/);
      const own = account.type === 'individual' ? INDIVIDUAL_ONLY : BUSINESS_ONLY;
      const other = account.type === 'individual' ? BUSINESS_ONLY : INDIVIDUAL_ONLY;
      for (const field of own) expect(account[field], field).toBeDefined();
      for (const field of other) expect(field in account, field).toBe(false);
      if (account.type === 'individual') {
        const { dob_day: day, dob_month: month, dob_year: year } = account as Required<Account>;
        const birth = new Date(Date.UTC(year, month - 1, day));
        expect([birth.getUTCFullYear(), birth.getUTCMonth() + 1, birth.getUTCDate()]).toEqual([year, month, day]);
        expect(birth.getTime()).toBeLessThan(REF_MS);
      } else {
        expect(isValidLei(account.lei!), account.lei).toBe(true);
      }
    }
  });

  it('gives wallets valid, unique EIP-55 addresses and one primary per account that has any', () => {
    const addresses = world.wallets.map((wallet) => wallet.wallet_address.toLowerCase());
    expect(new Set(addresses).size).toBe(addresses.length);
    for (const wallet of world.wallets) {
      expect(wallet.chain).toBe('polygon');
      expect(validateWalletAddress(wallet.wallet_address)).toEqual({ ok: true });
      expect(wallet.wallet_address).toBe(toChecksumAddress(wallet.wallet_address));
      const account = accounts.get(wallet.account_id);
      expect(account).toBeDefined();
      expect(wallet.created >= account!.created).toBe(true);
    }
    for (const account of world.accounts) {
      const own = world.wallets.filter((wallet) => wallet.account_id === account.id);
      if (own.length > 0) expect(own.filter((wallet) => wallet.is_primary)).toHaveLength(1);
      expect(own.length).toBeLessThanOrEqual(3);
    }
    expect(world.wallets.length).toBeGreaterThanOrEqual(world.accounts.length * 0.7);
  });

  it('gives payment methods valid SEPA IBANs of several countries, the holder name, one primary', () => {
    for (const paymentMethod of world.payment_method_details) {
      expect(paymentMethod.type).toBe('sepa');
      expect(validateIban(paymentMethod.iban)).toEqual({ ok: true, iban: paymentMethod.iban });
      const account = accounts.get(paymentMethod.account_id);
      expect(account).toBeDefined();
      expect(paymentMethod.account_holder_name).toBe(holderName(account!));
    }
    expect(new Set(world.payment_method_details.map((pm) => pm.iban.slice(0, 2))).size).toBeGreaterThanOrEqual(3);
    for (const account of world.accounts) {
      const own = world.payment_method_details.filter((pm) => pm.account_id === account.id);
      expect(own.length).toBeLessThanOrEqual(2);
      if (own.length > 0) expect(own.filter((pm) => pm.is_primary)).toHaveLength(1);
    }
  });

  it('covers every status × side × market combination', () => {
    const seen = new Set(world.orders.map((order) => `${order.status}/${order.side}/${order.market}`));
    expect(seen.size).toBe(20);
  });

  it('keeps every order within the market rules, with consistent lifecycle and payment fields', () => {
    const assetsByIsin = new Map(world.assets.map((asset) => [asset.isin, asset]));
    for (const order of world.orders) {
      const asset = assetsByIsin.get(order.isin);
      const account = accounts.get(order.account_id);
      expect(asset, order.isin).toBeDefined();
      expect(account).toBeDefined();
      if (order.market === 'SECONDARY') expect(asset!.tradeable).toBe(true);
      else if (order.side === 'BUY') expect(asset!.subscribeable).toBe(true);
      else expect(asset!.redeemable).toBe(true);
      expect(order.currency).toBe(asset!.currency);
      expect(STATUSES).toContain(order.status);
      expect(Number.isSafeInteger(order.amount_of_units) && order.amount_of_units > 0).toBe(true);
      expect(Number.isSafeInteger(order.value) && order.value > 0).toBe(true);
      const minInvestment = shareClasses.get(asset!.share_class_id)!.min_investment;
      if (order.side === 'BUY' && order.market === 'PRIMARY' && minInvestment !== null) {
        expect(order.value).toBeGreaterThanOrEqual(minInvestment);
      }
      if (order.custom_offering_id !== null) expect(offerings.get(order.custom_offering_id)?.asset_id).toBe(asset!.id);
      expect(order.created > account!.created).toBe(true);

      const { paid, settled } = expectedProgress(order);
      if (paid) expect(order.payment_transaction_reference).toMatch(/^PAY-[A-Z0-9]{12}$/);
      else expect(order.payment_transaction_reference).toBeNull();
      if (settled) expect(order.settlement_transaction_hash).toMatch(/^0x[0-9a-f]{64}$/);
      else expect(order.settlement_transaction_hash).toBeNull();

      const primaryWallet = world.wallets.find((wallet) => wallet.account_id === account!.id && wallet.is_primary);
      const primaryPm = world.payment_method_details.find((pm) => pm.account_id === account!.id && pm.is_primary);
      expect(primaryWallet).toBeDefined();
      expect(primaryPm).toBeDefined();
      const accountSide = {
        type: primaryPm!.type,
        iban: primaryPm!.iban,
        account_holder_name: primaryPm!.account_holder_name,
      };
      if (order.side === 'BUY') {
        expect(order.sender_payment_method_details).toEqual(accountSide);
        expect(order.recipient_payment_method_details).toEqual(PLATFORM_PAYMENT_DETAILS);
        expect(order.recipient_wallet_address).toBe(primaryWallet!.wallet_address);
      } else {
        expect(order.sender_payment_method_details).toEqual(PLATFORM_PAYMENT_DETAILS);
        expect(order.recipient_payment_method_details).toEqual(accountSide);
        expect(order.recipient_wallet_address).toBeNull();
      }
    }
  });

  it('dates everything in the two years before the reference date, as toISOString strings', () => {
    const dated = [world.share_classes, world.assets, world.accounts, world.wallets, world.orders].flat();
    for (const { created } of dated) {
      expect(new Date(created).toISOString()).toBe(created);
      const ms = Date.parse(created);
      expect(ms).toBeLessThan(REF_MS);
      expect(ms).toBeGreaterThanOrEqual(REF_MS - TWO_YEARS_MS);
    }
  });

  it('sorts every list by (created, id), and undated lists by id', () => {
    const sortedByCreated = <T extends { created: string; id: string }>(items: T[]): boolean =>
      items.every(
        (item, i) =>
          i === 0 ||
          items[i - 1]!.created < item.created ||
          (items[i - 1]!.created === item.created && items[i - 1]!.id < item.id),
      );
    const sortedById = <T extends { id: string }>(items: T[]): boolean =>
      items.every((item, i) => i === 0 || items[i - 1]!.id < item.id);
    expect(sortedByCreated(world.share_classes)).toBe(true);
    expect(sortedByCreated(world.assets)).toBe(true);
    expect(sortedByCreated(world.accounts)).toBe(true);
    expect(sortedByCreated(world.wallets)).toBe(true);
    expect(sortedByCreated(world.orders)).toBe(true);
    expect(sortedById(world.feeder_funds)).toBe(true);
    expect(sortedById(world.custom_offerings)).toBe(true);
    expect(sortedById(world.documents)).toBe(true);
    expect(sortedById(world.payment_method_details)).toBe(true);
  });
});
