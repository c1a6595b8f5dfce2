import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { basicCredentials } from '../../src/auth/basic-credentials.js';
import { OAuthError } from '../../src/api/errors.js';
import { HOST, http, testApp } from '../support/test-app.js';

/** RFC 6749 §2.3.1: each part form-urlencoded, then RFC 7617 Basic. */
const basic = (id: string, secret: string) => {
  const encode = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString('base64')}`;
};

const form = (fields: Record<string, string | undefined>) =>
  Object.fromEntries(
    Object.entries({ grant_type: 'client_credentials', scope: 'openid offline', audience: HOST, ...fields }).filter(
      ([, v]) => v !== undefined,
    ),
  );

describe('client authentication at the token endpoint: each client by the one method it is registered for', () => {
  let app: Express;
  beforeAll(() => {
    app = testApp({
      clients: [
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        { client_id: 'odd id:é', client_secret: 'p@ss w:rd+%', token_endpoint_auth_method: 'client_secret_basic' },
        { client_id: 'basic-client', client_secret: 'basic-secret', token_endpoint_auth_method: 'client_secret_basic' },
      ],
    });
  });
  const token = (fields: Record<string, string | undefined>, authorization?: string) => {
    const request = http(app).post('/oauth2/token').type('form');
    if (authorization) request.set('Authorization', authorization);
    return request.send(form(fields));
  };

  it('the discovery document advertises client_secret_basic and client_secret_post', async () => {
    const response = await http(app).get('/.well-known/openid-configuration');
    expect(response.body.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post']);
  });

  it('the default client (client_secret_post) gets a token with the five form fields', async () => {
    expect((await token({ client_id: 'sandbox-client', client_secret: 'sandbox-secret' })).status).toBe(200);
  });

  it('without Basic, a missing client_id or client_secret in the form is invalid_request naming it', async () => {
    for (const missing of ['client_id', 'client_secret']) {
      const response = await token({
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        [missing]: undefined,
      });
      expect(response.status, missing).toBe(400);
      expect(response.body.error).toBe('invalid_request');
      expect(response.body.error_description).toContain(`${missing} is required`);
      // it says where each kind of client sends its credentials
      expect(response.body.error_description).toMatch(
        /client_secret_post \(the default\) sends client_id and client_secret in the form body; .*client_secret_basic sends them only as HTTP Basic/,
      );
    }
  });

  it('the default client without client_id in the form answers 400 invalid_request naming client_id only', async () => {
    const response = await token({ client_secret: 'sandbox-secret' });
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    expect(response.body.error_description).toMatch(/^Invalid token request: client_id is required\. /);
  });

  it('Basic for a client_secret_post client answers 401 invalid_client naming both methods, with the Basic challenge', async () => {
    const response = await token({}, basic('sandbox-client', 'sandbox-secret'));
    expect(response.status).toBe(401);
    expect(response.body.error).toBe('invalid_client');
    expect(response.body.error_description).toMatch(/registered for client_secret_post .* used client_secret_basic/);
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm=/);
    // the same client_id repeated in the form does not make Basic the client's method
    expect((await token({ client_id: 'sandbox-client' }, basic('sandbox-client', 'sandbox-secret'))).status).toBe(401);
  });

  it('a client_secret_basic client gets a token through Basic only (the form then carries three fields)', async () => {
    const response = await token({}, basic('basic-client', 'basic-secret'));
    expect(response.status).toBe(200);
    expect(response.body.token_type).toBe('Bearer');
    const byForm = await token({ client_id: 'basic-client', client_secret: 'basic-secret' });
    expect(byForm.status).toBe(401);
    expect(byForm.body.error).toBe('invalid_client');
    expect(byForm.body.error_description).toMatch(/registered for client_secret_basic .* used client_secret_post/);
    expect(byForm.headers['www-authenticate']).toBeUndefined();
  });

  it('Basic credentials are form-urlencoded before base64, as RFC 6749 §2.3.1 says (colons, spaces, +, % and UTF-8)', async () => {
    expect((await token({}, basic('odd id:é', 'p@ss w:rd+%'))).status).toBe(200);
    // unencoded, the colon of the id would cut it short
    const raw = `Basic ${Buffer.from('odd id:é:p@ss w:rd+%').toString('base64')}`;
    expect((await token({}, raw)).status).not.toBe(200);
  });

  it('the "Basic" scheme is case-insensitive', async () => {
    expect((await token({}, basic('basic-client', 'basic-secret').replace('Basic', 'bAsIc'))).status).toBe(200);
  });

  it('a wrong Basic secret answers 401 invalid_client with a Basic challenge, naming no method', async () => {
    const response = await token({}, basic('basic-client', 'guess'));
    expect(response.status).toBe(401);
    expect(response.body).toEqual({
      error: 'invalid_client',
      error_description: expect.not.stringMatching(/registered for/),
    });
    expect(response.headers['www-authenticate']).toMatch(/^Basic realm=/);
  });

  it('Basic beside the same client_id in the form is fine (RFC 6749 §3.2.1); beside another one is invalid_request', async () => {
    expect((await token({ client_id: 'basic-client' }, basic('basic-client', 'basic-secret'))).status).toBe(200);
    const conflicting = await token(
      { client_id: 'odd id:é', client_secret: 'p@ss w:rd+%' },
      basic('basic-client', 'basic-secret'),
    );
    expect(conflicting.status).toBe(400);
    expect(conflicting.body.error).toBe('invalid_request');
  });

  it('Basic and client_secret in the form at once are two methods: 400 invalid_request for every client, the same secret too, and no token', async () => {
    const cases: [string, Record<string, string>, string][] = [
      [
        'client_secret_basic, the same secret',
        { client_secret: 'basic-secret' },
        basic('basic-client', 'basic-secret'),
      ],
      [
        'client_secret_basic, the whole form',
        { client_id: 'basic-client', client_secret: 'basic-secret' },
        basic('basic-client', 'basic-secret'),
      ],
      ['client_secret_basic, an empty secret', { client_secret: '' }, basic('basic-client', 'basic-secret')],
      ['client_secret_basic, odd characters', { client_secret: 'p@ss w:rd+%' }, basic('odd id:é', 'p@ss w:rd+%')],
      [
        'client_secret_post, the whole form',
        { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
        basic('sandbox-client', 'sandbox-secret'),
      ],
      [
        'client_secret_post, the secret only',
        { client_secret: 'sandbox-secret' },
        basic('sandbox-client', 'sandbox-secret'),
      ],
      ['a wrong secret', { client_secret: 'guess' }, basic('basic-client', 'guess')],
    ];
    const tokenRequests = async () =>
      (
        (await http(app).get('/__control/requests').set('X-Client-Id', 'basic-client')).body.data as {
          path: string;
          status: number;
        }[]
      ).filter((e) => e.path === '/oauth2/token');
    const before = (await tokenRequests()).length;
    for (const [label, fields, authorization] of cases) {
      const response = await token(fields, authorization);
      expect(response.status, label).toBe(400);
      expect(response.body, label).toEqual({
        error: 'invalid_request',
        error_description: expect.stringMatching(
          /^The request authenticates two ways: HTTP Basic credentials and client_secret in the form body\. Use one/,
        ),
      });
      expect(response.headers['cache-control'], label).toBe('no-store');
    }
    // each refusal is a request of the client Basic proves (three were basic-client's right secret), none issued a token
    expect((await tokenRequests()).slice(before).map((e) => e.status)).toEqual([400, 400, 400]);
  });

  it.each([
    'Basic',
    'Basic !!!',
    `Basic ${Buffer.from('no-colon').toString('base64')}`,
    `Basic ${Buffer.from('bad%zz:x').toString('base64')}`,
  ])(
    'an undecodable Basic header (%s) is invalid_request saying how Basic credentials are encoded, not asking for form fields',
    async (authorization) => {
      const response = await token({}, authorization);
      expect(response.status).toBe(400);
      expect(response.body.error).toBe('invalid_request');
      expect(response.body.error_description).toMatch(
        /^The Authorization header is not HTTP Basic credentials .*urlencode\(client_id\):urlencode\(client_secret\)/,
      );
    },
  );

  it('another Authorization scheme is not client authentication: the form credentials count', async () => {
    expect((await token({ client_id: 'sandbox-client', client_secret: 'sandbox-secret' }, 'Bearer abc')).status).toBe(
      200,
    );
  });

  it('the method is changed on the control plane, and the token endpoint follows at once', async () => {
    const changed = await http(app)
      .patch('/__control/clients/sandbox-client')
      .send({ token_endpoint_auth_method: 'client_secret_basic' });
    expect(changed.status).toBe(200);
    expect(changed.body.token_endpoint_auth_method).toBe('client_secret_basic');
    try {
      expect((await token({}, basic('sandbox-client', 'sandbox-secret'))).status).toBe(200);
      expect((await token({ client_id: 'sandbox-client', client_secret: 'sandbox-secret' })).status).toBe(401);
    } finally {
      await http(app)
        .patch('/__control/clients/sandbox-client')
        .send({ token_endpoint_auth_method: 'client_secret_post' });
    }
  });

  it('a method the control plane does not know is a 4xx naming the field, and changes nothing', async () => {
    const refused = await http(app)
      .patch('/__control/clients/sandbox-client')
      .send({ token_endpoint_auth_method: 'private_key_jwt' });
    expect(refused.status).toBe(422);
    expect(JSON.stringify(refused.body)).toContain('token_endpoint_auth_method');
    const listed = await http(app).get('/__control/clients');
    expect(
      listed.body.data.find((c: { client_id: string }) => c.client_id === 'sandbox-client').token_endpoint_auth_method,
    ).toBe('client_secret_post');
  });
});

describe('scope at the token endpoint', () => {
  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['blank', '   '],
  ])('a %s scope answers invalid_request', async (_name, scope) => {
    const response = await http(testApp())
      .post('/oauth2/token')
      .type('form')
      .send(form({ client_id: 'sandbox-client', client_secret: 'sandbox-secret', scope }));
    expect(response.status).toBe(400);
    expect(response.body.error).toBe('invalid_request');
    expect(response.body.error_description).toMatch(/scope/);
  });
});

describe('secret comparison', () => {
  it('a wrong secret of any length, a prefix or an extension of the right one, all answer invalid_client', async () => {
    const app = testApp();
    for (const secret of ['', 's', 'sandbox-secre', 'sandbox-secret ', 'sandbox-secretx', 'x'.repeat(5000)]) {
      const response = await http(app)
        .post('/oauth2/token')
        .type('form')
        .send(form({ client_id: 'sandbox-client', client_secret: secret }));
      expect(response.status, secret.slice(0, 20)).toBe(401);
      expect(response.body.error).toBe('invalid_client');
    }
  });
});

describe('the Basic header parser', () => {
  it('decodes form-urlencoded parts, + as a space', () => {
    expect(basicCredentials(`Basic ${Buffer.from('a%3Ab:c+d%25').toString('base64')}`)).toEqual({
      clientId: 'a:b',
      clientSecret: 'c d%',
    });
  });

  it('splits at the first colon: the secret may hold more', () => {
    expect(basicCredentials(`Basic ${Buffer.from('id:se:cret').toString('base64')}`)).toEqual({
      clientId: 'id',
      clientSecret: 'se:cret',
    });
  });

  it('answers undefined without a Basic header, and throws an OAuth invalid_request for a broken one', () => {
    expect(basicCredentials(undefined)).toBeUndefined();
    expect(basicCredentials('Bearer x')).toBeUndefined();
    expect(() => basicCredentials('Basic')).toThrow(OAuthError);
  });
});
