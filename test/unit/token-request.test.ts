import { describe, expect, it } from 'vitest';
import { generateWorld } from '../../fixtures/generate.js';
import { OAuthError } from '../../src/api/errors.js';
import { toClientRecord } from '../../src/domain/clients.js';
import { Fixtures, TenantRegistry } from '../../src/domain/tenants.js';
import { clientProvenBy, grantClientCredentials, type TokenRequest } from '../../src/domain/token-request.js';

const registry = new TenantRegistry(new Fixtures(generateWorld({ seed: 1, scale: { accounts: 1, orders: 0 } })), [
  toClientRecord({ client_id: 'alpha', client_secret: 'alpha-secret' }),
  toClientRecord({
    client_id: 'beta',
    client_secret: 'beta-secret',
    token_endpoint_auth_method: 'client_secret_basic',
  }),
]);

// a Basic client's form carries three fields; the pipeline adds the credentials only for validation
const form = (fields: Partial<TokenRequest> = {}): TokenRequest =>
  ({ grant_type: 'client_credentials', scope: 'openid offline', audience: 'fake.test', ...fields }) as TokenRequest;

describe('clientProvenBy: the client a token request’s credentials prove', () => {
  it('is the form’s client when its secret matches, and nobody for a wrong secret or an unknown client', () => {
    expect(
      clientProvenBy(registry, { client_id: 'alpha', client_secret: 'alpha-secret' }, undefined)?.client.client_id,
    ).toBe('alpha');
    expect(clientProvenBy(registry, { client_id: 'alpha', client_secret: 'beta-secret' }, undefined)).toBeUndefined();
    expect(clientProvenBy(registry, { client_id: 'gamma', client_secret: 'alpha-secret' }, undefined)).toBeUndefined();
  });

  it('takes Basic credentials over the form’s, whatever the form says', () => {
    const basic = { clientId: 'beta', clientSecret: 'beta-secret' };
    expect(
      clientProvenBy(registry, { client_id: 'alpha', client_secret: 'alpha-secret' }, basic)?.client.client_id,
    ).toBe('beta');
    expect(clientProvenBy(registry, {}, { clientId: 'beta', clientSecret: 'alpha-secret' })).toBeUndefined();
  });

  it('proves nobody from values that are not strings, as an unvalidated body may hold', () => {
    expect(
      clientProvenBy(registry, { client_id: ['alpha'], client_secret: 'alpha-secret' }, undefined),
    ).toBeUndefined();
    expect(
      clientProvenBy(registry, { client_id: 'alpha', client_secret: { value: 'alpha-secret' } }, undefined),
    ).toBeUndefined();
    expect(clientProvenBy(registry, {}, undefined)).toBeUndefined();
  });
});

describe('grantClientCredentials authenticates the client clientProvenBy proves', () => {
  it('grants the Basic client’s token, and answers a wrong Basic secret with the Basic challenge', () => {
    expect(
      grantClientCredentials(registry, form(), ['fake.test'], { clientId: 'beta', clientSecret: 'beta-secret' }).tenant
        .client.client_id,
    ).toBe('beta');
    const wrongSecret = () =>
      grantClientCredentials(registry, form(), ['fake.test'], { clientId: 'beta', clientSecret: 'wrong' });
    expect(wrongSecret).toThrow(OAuthError);
    expect(wrongSecret).toThrow(
      expect.objectContaining({
        status: 401,
        error: 'invalid_client',
        headers: { 'WWW-Authenticate': expect.stringMatching(/^Basic /) },
      }),
    );
  });

  it('grants each client only by the method it is registered for, naming both methods otherwise', () => {
    const alphaForm = form({ client_id: 'alpha', client_secret: 'alpha-secret' });
    expect(grantClientCredentials(registry, alphaForm, ['fake.test']).tenant.client.client_id).toBe('alpha');
    const alphaByBasic = () =>
      grantClientCredentials(registry, form(), ['fake.test'], { clientId: 'alpha', clientSecret: 'alpha-secret' });
    expect(alphaByBasic).toThrow(
      expect.objectContaining({
        status: 401,
        error: 'invalid_client',
        headers: { 'WWW-Authenticate': expect.stringMatching(/^Basic /) },
      }),
    );
    expect(alphaByBasic).toThrow(/registered for client_secret_post .* used client_secret_basic/);
    const betaByForm = () =>
      grantClientCredentials(registry, form({ client_id: 'beta', client_secret: 'beta-secret' }), ['fake.test']);
    expect(betaByForm).toThrow(expect.objectContaining({ status: 401, error: 'invalid_client', headers: undefined }));
    expect(betaByForm).toThrow(/registered for client_secret_basic .* used client_secret_post/);
  });

  it('says invalid_client without naming a method when the secret is wrong, whichever way it came', () => {
    const wrong = () =>
      grantClientCredentials(registry, form({ client_id: 'beta', client_secret: 'wrong' }), ['fake.test']);
    expect(wrong).toThrow(expect.objectContaining({ status: 401, error: 'invalid_client' }));
    expect(wrong).not.toThrow(/registered for/);
  });

  it('refuses a form client beside another Basic client even when both would prove themselves', () => {
    const both = () =>
      grantClientCredentials(registry, form({ client_id: 'alpha', client_secret: 'alpha-secret' }), ['fake.test'], {
        clientId: 'beta',
        clientSecret: 'beta-secret',
      });
    expect(both).toThrow(expect.objectContaining({ status: 400, error: 'invalid_request' }));
  });
});

describe('grantClientCredentials: the token holds the scopes asked', () => {
  const scoped = new TenantRegistry(new Fixtures(generateWorld({ seed: 1, scale: { accounts: 1, orders: 0 } })), [
    toClientRecord({ client_id: 'all', client_secret: 'all-secret' }),
    toClientRecord({ client_id: 'rig', client_secret: 'rig-secret', scopes: ['read:orders', 'control'] }),
  ]);
  const grant = (scope: string, client = 'all') =>
    grantClientCredentials(scoped, form({ client_id: client, client_secret: `${client}-secret`, scope }), ['fake.test'])
      .scope;

  it('openid offline alone: every API scope of the client, as the interface’s request always had', () => {
    expect(grant('openid offline')).toBe(
      'openid offline read:accounts write:accounts read:orders write:orders read:assets read:documents',
    );
    expect(grant('openid')).toBe(grant('openid offline'));
    expect(grant('openid offline', 'rig')).toBe('openid offline read:orders');
  });

  it('API scopes named: those, and openid, offline and control only when named', () => {
    expect(grant('openid offline read:orders')).toBe('openid offline read:orders');
    expect(grant('read:documents read:orders')).toBe('read:orders read:documents');
    expect(grant('offline read:orders')).toBe('offline read:orders');
    expect(grant('openid offline read:orders control', 'rig')).toBe('openid offline read:orders control');
    expect(grant('openid offline control', 'rig')).toBe('openid offline read:orders control');
  });

  it('a scope the client lacks: invalid_scope naming it, before anything is granted', () => {
    expect(() => grant('openid offline read:orders write:orders', 'rig')).toThrow(
      expect.objectContaining({
        status: 400,
        error: 'invalid_scope',
        description: expect.stringContaining('write:orders'),
      }),
    );
    expect(() => grant('openid control')).toThrow(expect.objectContaining({ error: 'invalid_scope' }));
  });
});
