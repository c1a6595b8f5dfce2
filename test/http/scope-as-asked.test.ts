import jwt from 'jsonwebtoken';
import type { Express } from 'express';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, http, requestToken, testApp } from '../support/test-app.js';

const EVERY_API_SCOPE = 'read:accounts write:accounts read:orders write:orders read:assets read:documents';

describe('the token holds the scopes its request asks for', () => {
  let app: Express;
  beforeAll(() => {
    app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'assets-only', client_secret: 's3cret', scopes: ['read:assets'] },
        { client_id: 'rig', client_secret: 'rig-secret', scopes: ['read:orders', 'read:accounts', 'control'] },
      ],
    });
  });

  const granted = async (scope: string, client = { client_id: 'sandbox-client', client_secret: 'sandbox-secret' }) => {
    const response = await requestToken(app, { scope, ...client });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const claims = jwt.decode(response.body.access_token as string) as { scope: string };
    // the answer's `scope` is what the token carries
    expect(claims.scope).toBe(response.body.scope);
    return { scope: response.body.scope as string, token: response.body.access_token as string };
  };

  it('openid offline alone (the interface’s request) holds every API scope of the client, as before', async () => {
    expect((await granted('openid offline')).scope).toBe(`openid offline ${EVERY_API_SCOPE}`);
    expect((await granted('openid offline', { client_id: 'assets-only', client_secret: 's3cret' })).scope).toBe(
      'openid offline read:assets',
    );
  });

  it('openid offline read:orders holds read:orders only: the orders answer, the accounts 403 insufficient_scope', async () => {
    const { scope, token } = await granted('openid offline read:orders');
    expect(scope).toBe('openid offline read:orders');
    expect((await http(app).get('/v1/orders?limit=1').set(bearer(token))).status).toBe(200);
    const accounts = await http(app).get('/v1/accounts').set(bearer(token));
    expect(accounts.status).toBe(403);
    expect(accounts.body).toMatchObject({ status: 403, code: 'insufficient_scope' });
    expect(accounts.body.detail).toContain('read:accounts');
    expect(accounts.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="read:accounts"');
    const cancel = await http(app).delete('/v1/orders/3fa85f64-5717-4562-b3fc-2c963f66afa6/').set(bearer(token));
    expect(cancel.status).toBe(403);
  });

  it('holds what it names, in the interface’s order, with openid and offline only when asked', async () => {
    expect((await granted('read:assets read:accounts')).scope).toBe('read:accounts read:assets');
    expect((await granted('offline write:orders read:orders openid')).scope).toBe(
      'openid offline read:orders write:orders',
    );
    expect((await granted('openid read:orders read:orders')).scope).toBe('openid read:orders');
  });

  it('control is held only when named, beside the API scopes asked (or all of them when none is)', async () => {
    const rig = { client_id: 'rig', client_secret: 'rig-secret' };
    expect((await granted('openid offline', rig)).scope).toBe('openid offline read:accounts read:orders');
    expect((await granted('openid offline control', rig)).scope).toBe(
      'openid offline read:accounts read:orders control',
    );
    expect((await granted('openid offline read:orders control', rig)).scope).toBe('openid offline read:orders control');
  });

  it('an API scope the client lacks is invalid_scope, whatever else the request names', async () => {
    const response = await requestToken(app, {
      client_id: 'assets-only',
      client_secret: 's3cret',
      scope: 'openid offline read:assets read:orders',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: 'invalid_scope' });
    expect(response.body.error_description).toContain('read:orders');
  });
});
