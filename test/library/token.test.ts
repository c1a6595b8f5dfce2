import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, startServer, type FakeServer } from '../../src/index.js';
import { expiryOf } from '../../src/token-keeper.js';

let fake: FakeServer;
beforeAll(async () => {
  fake = await startServer({
    seed: 1,
    clients: [
      { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
      { client_id: 'other', client_secret: 'other-secret', scopes: ['read:assets'] },
    ],
  });
});
beforeEach(() => fake.reset());
afterAll(() => fake.stop());

const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as {
    jti: string;
    exp: number;
    iat: number;
    scope: string;
    sub: string;
  };
const grants = async (clientId = fake.clientId) =>
  (await fake.control.forClient(clientId).requests({ method: 'POST', path: '/oauth2/token' })).length;
const get = async (path: string, token: string) =>
  (await fetch(`${fake.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).status;

describe('fake.token()', () => {
  it('keeps one token per client: asked again, the same one, fetched once', async () => {
    const first = await fake.token();
    expect(await fake.token()).toBe(first);
    expect(await fake.token(fake.clientId)).toBe(first);
    const other = await fake.token('other');
    expect(other).not.toBe(first);
    expect(claimsOf(other).sub).toBe('other');
    expect(await fake.token('other')).toBe(other);
    expect(await get('/v1/orders', first)).toBe(200);
  });

  it('shares a token being fetched between concurrent callers', async () => {
    const tokens = await Promise.all(
      Array.from({ length: 5 }, () => fake.token('other', { fresh: true }).then(() => fake.token('other'))),
    );
    expect(new Set(tokens).size).toBe(1);
    fake.reset('other');
    await Promise.all([fake.token('other', { fresh: true }), fake.token('other'), fake.token('other')]);
    expect(await grants('other')).toBe(1);
  });

  it('{ fresh: true } always fetches a new token, which is kept from then on', async () => {
    const kept = await fake.token();
    const fresh = await fake.token(undefined, { fresh: true });
    expect(claimsOf(fresh).jti).not.toBe(claimsOf(kept).jti);
    expect(await fake.token()).toBe(fresh);
    expect(await fake.token(fake.clientId, { fresh: true })).not.toBe(fresh);
  });

  it('renews the token once the tenant clock is within 60 s of its expiry, not before', async () => {
    await fake.control.freezeClock();
    const token = await fake.token(undefined, { fresh: true });
    const { exp, iat } = claimsOf(token);
    expect(expiryOf(token)).toBe(exp);
    await fake.control.advanceClock(exp - iat - 61);
    expect(await fake.token()).toBe(token);
    await fake.control.advanceClock(1); // exactly 60 s before expiry: renewed, as the readiness rule counts it
    const renewed = await fake.token();
    expect(renewed).not.toBe(token);
    expect(claimsOf(renewed).exp).toBe(exp + (exp - iat - 60));
    expect(await get('/v1/orders', renewed)).toBe(200);
    // a clock moved past the expiry: the kept token would be refused; a new one is fetched
    await fake.control.advanceClock(7200);
    expect(await get('/v1/orders', renewed)).toBe(401);
    expect(await get('/v1/orders', await fake.token())).toBe(200);
  });

  it('fetches a new token when the client changed (scopes, secret, method) since the kept one', async () => {
    const before = await fake.token('other');
    expect(await get('/v1/orders', before)).toBe(403);
    await fake.control.updateClient('other', { scopes: ['read:assets', 'read:orders'] });
    const after = await fake.token('other');
    expect(after).not.toBe(before);
    expect(claimsOf(after).scope).toContain('read:orders');
    expect(await get('/v1/orders', after)).toBe(200);
    await fake.control.updateClient('other', { token_endpoint_auth_method: 'client_secret_basic' });
    expect(await fake.token('other')).not.toBe(after);
    await fake.control.updateClient('other', {
      token_endpoint_auth_method: 'client_secret_post',
      scopes: ['read:assets'],
    });
  });

  it('rejects for an unknown client with the DomainError client_not_found, and keeps nothing', async () => {
    const refused = await fake.token('nobody').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ status: 404, code: 'client_not_found' });
  });

  it("the README's pattern, a token asked before every request across resets, has no readiness findings; fresh ones per call would", async () => {
    for (let test = 0; test < 3; test++) {
      fake.reset();
      for (let call = 0; call < 4; call++)
        expect(await get('/v1/share-classes?limit=100', await fake.token())).toBe(200);
    }
    expect(fake.report().findings).toEqual([]);
    for (let call = 0; call < 4; call++)
      expect(await get('/v1/share-classes?limit=100', await fake.token(undefined, { fresh: true }))).toBe(200);
    expect(fake.report().findings.map((f) => f.code)).toContain('token_per_call');
  });
});
