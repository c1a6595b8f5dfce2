import * as oauth from 'openid-client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

let server: FakeServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

it('a standard OAuth client library discovers the server and gets a token with client_secret_post', async () => {
  const config = await oauth.discovery(new URL(server.url), 'sandbox-client', undefined, oauth.ClientSecretPost('sandbox-secret'), {
    execute: [oauth.allowInsecureRequests],
  });
  expect(config.serverMetadata().token_endpoint).toBe(`${server.url}/oauth2/token`);
  const tokens = await oauth.clientCredentialsGrant(config, { scope: 'openid offline', audience: new URL(server.url).host });
  expect(tokens.token_type.toLowerCase()).toBe('bearer');
  expect(tokens.expires_in).toBe(3600);
  const response = await fetch(`${server.url}/v1/share-classes`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
  expect(response.status).toBe(200);
});
