import { describe, expect, it } from 'vitest';
import { shown } from '../../src/shadow/normalize.js';
import { carriesSecret, secretForms, withoutSecretValues } from '../../src/records/secrets.js';

// Credentials in any spelling (docs/readiness.md, "The journal"): the one definition of a secret finds a credential however a path or a
// query percent-encodes it, and replaces it where it stands.

const SECRET = 'acme.secret-0123456789';
const forms = secretForms([SECRET]);

describe('a credential percent-encoded in any way', () => {
  it.each([
    ['as it is', `/v1/accounts/${SECRET}/wallets`],
    ['its first letter encoded', '/v1/accounts/%61cme.secret-0123456789/wallets'],
    ['its dot encoded, upper case', '/v1/accounts/acme%2Esecret-0123456789/wallets'],
    ['its dot encoded, lower case', '/v1/accounts/acme%2esecret-0123456789/wallets'],
    [
      'every character, hex of both cases',
      `/v1/accounts/${[...SECRET].map((c, i) => `%${c.charCodeAt(0).toString(16)[i % 2 ? 'toUpperCase' : 'toLowerCase']()}`).join('')}/wallets`,
    ],
    ['encoded twice', '/v1/accounts/%2561cme%252Esecret-0123456789/wallets'],
  ])('%s: replaced where it stands, the rest as it was', (_, path) => {
    expect(withoutSecretValues(path, forms)).toBe('/v1/accounts/[redacted]/wallets');
    expect(carriesSecret(path, SECRET)).toBe(true);
  });

  it('a token by its shape, its dots encoded', () => {
    expect(withoutSecretValues('/v1/x/eyJhbGciOiJSUzI1NiJ9%2EeyJzdWIiOiJhIn0%2Ec2ln?a=1', [])).toBe(
      '/v1/x/[redacted]?a=1',
    );
  });

  it('in a query, a space of it as `+`', () => {
    const spaced = secretForms(['acme secret 0123']);
    expect(withoutSecretValues('q=acme+secret+0123&r=1', spaced)).toBe('q=[redacted]&r=1');
    expect(withoutSecretValues('q=acme%20secret%200123&r=1', spaced)).toBe('q=[redacted]&r=1');
  });

  it('leaves escapes that name nothing as they were: other text, non-ASCII, broken escapes', () => {
    for (const text of ['/v1/caf%C3%A9/%E2%80%A8/%ZZ/%/%C3', '/v1/accounts/acme%2Esecret-012345678', '%25%25%25']) {
      expect(withoutSecretValues(text, forms)).toBe(text);
    }
    expect(carriesSecret('/v1/accounts/acme%2Esecret', SECRET)).toBe(false);
  });
});

describe("what shadow mode's report shows of a long value", () => {
  it('keeps no part of a credential percent-encoded across the cut', () => {
    const encoded = [...SECRET].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
    for (let before = 980; before <= 1010; before++) {
      const value = `${'x'.repeat(before)}${encoded}${'y'.repeat(2000)}`;
      const text = shown('/note', value, forms) as string;
      expect(text, String(before)).not.toMatch(/%61%63|%73%65%63/);
    }
  });
});

describe('a credential that is no well-formed text', () => {
  it('(a lone surrogate in a client secret) is still replaced as it is, and reading never throws', () => {
    const odd = secretForms(['\ud800-odd-secret-0123']);
    expect(withoutSecretValues('/v1/x/\ud800-odd-secret-0123', odd)).toBe('/v1/x/[redacted]');
  });
});
