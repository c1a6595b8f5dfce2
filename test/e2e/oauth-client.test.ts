import * as oauth from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

it('a standard OAuth client library discovers the server and gets a token with client_secret_post', async () => {
  const config = await oauth.discovery(
    new URL(server.url),
    'sandbox-client',
    undefined,
    oauth.ClientSecretPost('sandbox-secret'),
    {
      execute: [oauth.allowInsecureRequests],
    },
  );
  expect(config.serverMetadata().token_endpoint).toBe(`${server.url}/oauth2/token`);
  const tokens = await oauth.clientCredentialsGrant(config, {
    scope: 'openid offline',
    audience: new URL(server.url).host,
  });
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(tokens.expires_in).toBe(3600);
  const response = await fetch(`${server.url}/v1/share-classes`, {
    headers: { authorization: `Bearer ${tokens.access_token}` },
  });
  expect(response.status).toBe(200);
});

it('the same library gets a token with client_secret_basic, its default, for a client registered for it, with a secret that needs encoding', async () => {
  const fake = await startServer({
    clients: [
      { client_id: 'partner:one', client_secret: 'p+ss w%rd:é', token_endpoint_auth_method: 'client_secret_basic' },
    ],
  });
  try {
    const config = await oauth.discovery(
      new URL(fake.url),
      'partner:one',
      undefined,
      oauth.ClientSecretBasic('p+ss w%rd:é'),
      {
        execute: [oauth.allowInsecureRequests],
      },
    );
    const tokens = await oauth.clientCredentialsGrant(config, {
      scope: 'openid offline',
      audience: new URL(fake.url).host,
    });
    expect(tokens.scope).toContain('read:orders');
  } finally {
    await fake.stop();
  }
});

it('the library left at its Basic default, against a client_secret_post client, is refused as production refuses it, naming both methods', async () => {
  const config = await oauth.discovery(
    new URL(server.url),
    'sandbox-client',
    undefined,
    oauth.ClientSecretBasic('sandbox-secret'),
    {
      execute: [oauth.allowInsecureRequests],
    },
  );
  const refused = (await oauth
    .clientCredentialsGrant(config, { scope: 'openid offline', audience: new URL(server.url).host })
    .then(
      () => undefined,
      (error: unknown) => error,
    )) as { status?: number; response?: Response } | undefined;
  // the library surfaces the Basic challenge; the answer's body says what to change
  expect(refused?.status).toBe(401);
  expect(await refused?.response?.json()).toMatchObject({
    error: 'invalid_client',
    error_description: expect.stringMatching(/registered for client_secret_post .* used client_secret_basic/),
  });
});
