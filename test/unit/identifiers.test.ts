import { describe, expect, it } from 'vitest';
import { IBAN_LENGTHS, ibanCheckDigits, normaliseIban, validateIban } from '../../src/domain/identifiers/iban.js';
import { isinCheckDigit, isValidIsin } from '../../src/domain/identifiers/isin.js';
import { isValidLei, leiCheckDigits } from '../../src/domain/identifiers/lei.js';
import { toChecksumAddress, validateWalletAddress } from '../../src/domain/identifiers/wallet-address.js';
import { PLATFORM_PAYMENT_DETAILS } from '../../src/domain/platform.js';

describe('ISIN', () => {
  const real = ['US0378331005', 'DE000BAY0017', 'IE00B4L5Y983', 'LU0274208692', 'US5949181045', 'GB0002634946'];

  it.each(real)('accepts the real ISIN %s', (isin) => {
    expect(isValidIsin(isin)).toBe(true);
    expect(isinCheckDigit(isin.slice(0, 11))).toBe(isin[11]);
  });

  it.each([
    ['US0378331006', 'wrong check digit'],
    ['us0378331005', 'lower case'],
    ['US037833100', 'too short'],
    ['US03783310055', 'too long'],
    ['1S0378331005', 'country not letters'],
    ['US037833100X', 'check digit not a digit'],
    ['', 'empty'],
  ])('rejects %s (%s)', (isin) => {
    expect(isValidIsin(isin)).toBe(false);
  });

  it('refuses to compute a check digit for a malformed body', () => {
    expect(() => isinCheckDigit('US03783310')).toThrow(RangeError);
    expect(() => isinCheckDigit('us037833100')).toThrow(RangeError);
  });
});

describe('IBAN', () => {
  const real = [
    'DE89370400440532013000',
    'GB82WEST12345698765432',
    'FR1420041010050500013M02606',
    'NL91ABNA0417164300',
    'BE68539007547034',
    'CH9300762011623852957',
    'AT611904300234573201',
    'ES9121000418450200051332',
    'IT60X0542811101000000123456',
    'NO9386011117947',
    'MT84MALT011000012345MTLCAST001S',
  ];

  it.each(real)('accepts the real IBAN %s', (iban) => {
    expect(validateIban(iban)).toEqual({ ok: true, iban });
    expect(ibanCheckDigits(iban.slice(0, 2), iban.slice(4))).toBe(iban.slice(2, 4));
  });

  it('normalises spaces and case', () => {
    expect(normaliseIban(' de89 3704 0044 0532 0130 00 ')).toBe('DE89370400440532013000');
    expect(validateIban('gb82 west 1234 5698 7654 32')).toEqual({ ok: true, iban: 'GB82WEST12345698765432' });
  });

  it('names the problem', () => {
    const reason = (s: string): string => {
      const result = validateIban(s);
      if (result.ok) throw new Error(`${s} unexpectedly valid`);
      return result.reason;
    };
    expect(reason('DE89370400440532013001')).toMatch(/check digits fail/);
    expect(reason('DE8937040044053201300')).toMatch(/wrong length for country DE \(expected 22, got 21\)/);
    expect(reason('US89370400440532013000')).toMatch(/unknown country US/);
    expect(reason('DE89-3704-0044-0532-0130-00')).toMatch(/bad characters/);
    expect(reason('')).toMatch(/empty/);
    expect(reason('DEXX370400440532013000')).toMatch(/country code and two check digits/);
  });

  it('knows the SEPA countries', () => {
    const sepa = [
      'AT',
      'BE',
      'BG',
      'HR',
      'CY',
      'CZ',
      'DK',
      'EE',
      'FI',
      'FR',
      'DE',
      'GR',
      'HU',
      'IE',
      'IT',
      'LV',
      'LT',
      'LU',
      'MT',
      'NL',
      'PL',
      'PT',
      'RO',
      'SK',
      'SI',
      'ES',
      'SE',
      'IS',
      'LI',
      'NO',
      'CH',
      'GB',
      'MC',
      'SM',
      'VA',
      'AD',
    ];
    for (const country of sepa) expect(IBAN_LENGTHS[country], country).toBeGreaterThanOrEqual(15);
    expect(IBAN_LENGTHS).toMatchObject({
      DE: 22,
      FR: 27,
      NL: 18,
      ES: 24,
      IT: 27,
      AT: 20,
      BE: 16,
      LU: 20,
      IE: 22,
      PT: 25,
      FI: 18,
      CH: 21,
      GB: 22,
    });
  });

  it('computes check digits that validate', () => {
    const bban = '370400440532013000';
    expect(ibanCheckDigits('DE', bban)).toBe('89');
    expect(validateIban(`DE${ibanCheckDigits('DE', '500105170648489890')}500105170648489890`).ok).toBe(true);
  });
});

describe('LEI', () => {
  const real = ['HWUPKR0MPOU8FGXBT394', '7LTWFZYICNSX8D621K86', '506700GE1G29325QX363', '529900T8BM49AURSDO55'];

  it.each(real)('accepts the real LEI %s', (lei) => {
    expect(isValidLei(lei)).toBe(true);
    expect(leiCheckDigits(lei.slice(0, 18))).toBe(lei.slice(18));
  });

  it.each(['HWUPKR0MPOU8FGXBT395', 'hwupkr0mpou8fgxbt394', 'HWUPKR0MPOU8FGXBT39', 'HWUPKR0MPOU8FGXBT3X4', ''])(
    'rejects %s',
    (lei) => expect(isValidLei(lei)).toBe(false),
  );
});

describe('wallet address (EIP-55)', () => {
  const vectors = [
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    '0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb',
    '0x52908400098527886E0F7030069857D2E4169EE7',
    '0x8617E340B3D01FA5F11F306F4090FD50E238070D',
    '0xde709f2102306220921060314715629080e2fb77',
    '0x27b1fdb04752bbc536007a920d24acb045561c26',
  ];

  it.each(vectors)('checksums and accepts %s', (address) => {
    expect(toChecksumAddress(address.toLowerCase())).toBe(address);
    expect(toChecksumAddress(`0x${address.slice(2).toUpperCase()}`)).toBe(address);
    expect(validateWalletAddress(address)).toEqual({ ok: true });
  });

  it('accepts all-lower and all-upper digits without a checksum', () => {
    expect(validateWalletAddress('0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed')).toEqual({ ok: true });
    expect(validateWalletAddress('0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED')).toEqual({ ok: true });
  });

  it('rejects a mixed-case address with a wrong checksum, naming the right one', () => {
    const result = validateWalletAddress('0x5aaeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toContain('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
  });

  it.each([
    '5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAedd',
    '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg',
    '0X5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    '',
  ])('rejects the malformed %s', (address) => {
    const result = validateWalletAddress(address);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/0x followed by 40 hexadecimal digits/);
    expect(() => toChecksumAddress(address)).toThrow(RangeError);
  });
});

describe('platform payment details', () => {
  it('are frozen SEPA details with a valid German IBAN', () => {
    expect(Object.isFrozen(PLATFORM_PAYMENT_DETAILS)).toBe(true);
    expect(PLATFORM_PAYMENT_DETAILS.type).toBe('sepa');
    expect(PLATFORM_PAYMENT_DETAILS.iban.startsWith('DE')).toBe(true);
    expect(validateIban(PLATFORM_PAYMENT_DETAILS.iban)).toEqual({ ok: true, iban: PLATFORM_PAYMENT_DETAILS.iban });
    expect(PLATFORM_PAYMENT_DETAILS.account_holder_name.length).toBeGreaterThan(0);
  });
});
