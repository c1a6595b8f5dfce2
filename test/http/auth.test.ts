import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { HOST, bearer, http, requestToken, testApp, tokenFor } from '../support/test-app.js';

describe('the token endpoint', () => {
  let app: Express;
  beforeAll(() => {
    app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'assets-only', client_secret: 's3cret', scopes: ['read:assets'] },
      ],
    });
  });

  it('grants a Bearer token with openid offline and every API scope of the client', async () => {
    const response = await requestToken(app);
    expect(response.status).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(response.body).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3600,
      scope: 'openid offline read:accounts write:accounts read:orders write:orders read:assets read:documents',
    });
  });

  it('signs an RS256 JWT with a kid and the claims of docs/api.md, verifiable with the published JWKS', async () => {
    const token = await tokenFor(app);
    const jwks = (await http(app).get('/.well-known/jwks.json')).body as { keys: { kid: string }[] };
    const header = jwt.decode(token, { complete: true })!.header;
    expect(header.alg).toBe('RS256');
    const jwk = jwks.keys.find((k) => k.kid === header.kid)!;
    expect(jwk).toBeDefined();
    const claims = jwt.verify(token, createPublicKey({ key: jwk as never, format: 'jwk' }), {
      algorithms: ['RS256'],
    }) as jwt.JwtPayload;
    expect(claims).toMatchObject({
      iss: `http://${HOST}`,
      aud: HOST,
      sub: 'sandbox-client',
      client_id: 'sandbox-client',
    });
    expect(claims.exp! - claims.iat!).toBe(3600);
    expect(typeof claims.jti).toBe('string');
  });

  it('grants only the client’s own scopes', async () => {
    const response = await requestToken(app, { client_id: 'assets-only', client_secret: 's3cret' });
    expect(response.body.scope).toBe('openid offline read:assets');
  });

  it('accepts the hostname alone as audience', async () => {
    const response = await requestToken(app, { audience: 'localhost' }, 'localhost:8080');
    expect(response.status).toBe(200);
  });

  it.each([
    ['a missing field', { audience: undefined }, 400, 'invalid_request'],
    ['a wrong audience', { audience: 'api.example.com' }, 400, 'invalid_request'],
    ['another grant type', { grant_type: 'password' }, 400, 'unsupported_grant_type'],
    [
      'a scope the client is not granted',
      { client_id: 'assets-only', client_secret: 's3cret', scope: 'openid read:orders' },
      400,
      'invalid_scope',
    ],
    ['an unknown client', { client_id: 'nobody' }, 401, 'invalid_client'],
    ['a wrong secret', { client_secret: 'guess' }, 401, 'invalid_client'],
  ])('answers %s with the RFC 6749 error', async (_case, fields, status, error) => {
    const body = Object.fromEntries(
      Object.entries({
        grant_type: 'client_credentials',
        scope: 'openid offline',
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        audience: HOST,
        ...fields,
      }).filter(([, v]) => v !== undefined),
    );
    const response = await http(app).post('/oauth2/token').type('form').send(body);
    expect(response.status).toBe(status);
    expect(response.body).toEqual({ error, error_description: expect.any(String) });
  });

  it('refuses a body that is not form-encoded with invalid_request', async () => {
    const response = await http(app).post('/oauth2/token').send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    expect(response.body.error_description).toMatch(/application\/x-www-form-urlencoded/);
  });
});

describe('discovery', () => {
  it('names the issuer, token endpoint, JWKS, grant types and scopes of the requesting host', async () => {
    const response = await http(testApp()).get('/.well-known/openid-configuration');
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      issuer: `http://${HOST}`,
      token_endpoint: `http://${HOST}/oauth2/token`,
      jwks_uri: `http://${HOST}/.well-known/jwks.json`,
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    });
    expect(response.body.scopes_supported).toEqual(
      expect.arrayContaining(['openid', 'offline', 'read:orders', 'write:orders']),
    );
  });

  it('answers a missing audience naming the value this server takes: its Host, or BASE_URL’s host when set', async () => {
    const form = {
      grant_type: 'client_credentials',
      scope: 'openid offline',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
    };
    const missing = await http(testApp(), 'localhost:8080').post('/oauth2/token').type('form').send(form);
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: 'invalid_request',
      error_description:
        'Invalid token request: audience is required: "localhost:8080" here (the host of this server\'s base URL).',
    });
    const behindBaseUrl = await http(testApp({ baseUrl: 'https://sandbox.example.com' }), 'elsewhere:9')
      .post('/oauth2/token')
      .type('form')
      .send(form);
    expect(behindBaseUrl.body.error_description).toContain('audience is required: "sandbox.example.com" here');
  });

  it('uses BASE_URL for issuer and audience when configured', async () => {
    const app = testApp({ baseUrl: 'https://sandbox.example.com' });
    expect((await http(app, 'anything:1').get('/.well-known/openid-configuration')).body.issuer).toBe(
      'https://sandbox.example.com',
    );
    const token = await tokenFor(app, { audience: 'sandbox.example.com' }, 'elsewhere:9');
    expect((await http(app, 'other:2').get('/v1/assets').set(bearer(token))).status).toBe(200);
  });
});

describe('bearer verification', () => {
  let app: Express;
  let token: string;
  beforeAll(async () => {
    app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'assets-only', client_secret: 's3cret', scopes: ['read:assets'] },
      ],
    });
    token = await tokenFor(app);
  });

  const expectInvalid = async (authorization: string | undefined, code = 'invalid_token', host = HOST) => {
    const request = http(app, host).get('/v1/share-classes');
    const response = authorization === undefined ? await request : await request.set('Authorization', authorization);
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body.code).toBe(code);
    expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    return response;
  };

  it('accepts the token it issued', async () => {
    expect((await http(app).get('/v1/share-classes').set(bearer(token))).status).toBe(200);
  });

  it('answers 401 without a token', async () => {
    await expectInvalid(undefined);
  });

  it('answers 401 with error="invalid_token" for a malformed token', async () => {
    const response = await expectInvalid('Bearer not-a-jwt');
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('answers 401 for another scheme', async () => {
    await expectInvalid('Basic c2FuZGJveC1jbGllbnQ6c2FuZGJveC1zZWNyZXQ=');
  });

  it('answers 401 for a tampered token', async () => {
    const [h, p, s] = token.split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    payload.scope += ' admin';
    await expectInvalid(`Bearer ${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}`);
  });

  it('answers 401 for an alg:none token', async () => {
    const header = jwt.decode(token, { complete: true })!.header;
    const none = `${Buffer.from(JSON.stringify({ ...header, alg: 'none' })).toString('base64url')}.${token.split('.')[1]}.`;
    await expectInvalid(`Bearer ${none}`);
  });

  it('answers 401 for an HS256 token keyed with the public key (algorithm confusion)', async () => {
    const jwks = (await http(app).get('/.well-known/jwks.json')).body;
    const pem = createPublicKey({ key: jwks.keys[0], format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const claims = jwt.decode(token) as jwt.JwtPayload;
    const forged = jwt.sign(claims, pem, { algorithm: 'HS256', keyid: jwks.keys[0].kid });
    await expectInvalid(`Bearer ${forged}`);
  });

  it('answers 401 for a token signed by another key with our kid', async () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const decoded = jwt.decode(token, { complete: true })!;
    const forged = jwt.sign(decoded.payload as object, privateKey, { algorithm: 'RS256', keyid: decoded.header.kid! });
    await expectInvalid(`Bearer ${forged}`);
  });

  it('answers 401 token_expired once the client’s clock passes exp', async () => {
    const local = testApp();
    const short = await tokenFor(local);
    await http(local).post('/__control/clock').send({ advance_seconds: 3601 }).expect(200);
    const response = await http(local).get('/v1/assets').set(bearer(short));
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('token_expired');
    expect(response.headers['www-authenticate']).toContain('error="invalid_token"');
  });

  it('answers 401 token_expired for a token already used (verified once, expiry checked every time)', async () => {
    const local = testApp();
    const used = await tokenFor(local);
    expect((await http(local).get('/v1/assets').set(bearer(used))).status).toBe(200);
    await http(local).post('/__control/clock').send({ advance_seconds: 3600 }).expect(200);
    const response = await http(local).get('/v1/assets').set(bearer(used));
    expect(response.status).toBe(401);
    expect(response.body.code).toBe('token_expired');
  });

  it('answers 401 for a token whose audience is another host', async () => {
    await expectInvalid(`Bearer ${token}`, 'invalid_token', 'other.test');
  });

  it('answers 401 for a token of another issuer with an accepted audience', async () => {
    // audience "localhost" is accepted on every port of localhost, but the issuer names the port
    const portA = await tokenFor(app, { audience: 'localhost' }, 'localhost:1111');
    const response = await http(app, 'localhost:2222').get('/v1/assets').set(bearer(portA));
    expect(response.status).toBe(401);
    expect(response.body.detail).toMatch(/issuer/);
  });

  it('answers 403 insufficient_scope when the token lacks the operation’s scope', async () => {
    const assetsOnly = await tokenFor(app, { client_id: 'assets-only', client_secret: 's3cret' });
    expect((await http(app).get('/v1/assets').set(bearer(assetsOnly))).status).toBe(200);
    const response = await http(app).get('/v1/orders').set(bearer(assetsOnly));
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ code: 'insufficient_scope', status: 403 });
    expect(response.body.detail).toContain('read:orders');
  });

  it('keeps scope checks per operation: documents need read:documents', async () => {
    const assetsOnly = await tokenFor(app, { client_id: 'assets-only', client_secret: 's3cret' });
    const response = await http(app).get('/v1/funds/ANY/documents').set(bearer(assetsOnly));
    expect(response.status).toBe(403);
  });

  it('rejects a token of another server instance', async () => {
    const foreign = await tokenFor(testApp());
    await expectInvalid(`Bearer ${foreign}`);
  });
});
