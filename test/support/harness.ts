import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import { createApp, requestListener } from '../../src/app.js';
import type { FakeOptions } from '../../src/config.js';

/** Every test app validates its responses against the OpenAPI document: a mismatch answers 500 and fails the test. */
export const HOST = 'fake.test';

export function testApp(options: FakeOptions = {}): Express {
  // `.test` names are not localhost names: the tests' hosts are allowed like a partner's ALLOWED_HOSTS would.
  return createApp({ validateResponses: true, allowedHosts: ['.test'], ...options });
}

/**
 * Each app listens once, on a loopback port, until its test file ends (test/support/close-servers.ts): given the bare
 * app, supertest would open and close a server for every request, which cost more than most requests here.
 */
const listening = new Map<Express, Server>();

function serverOf(app: Express): Server {
  let server = listening.get(app);
  if (!server) {
    // listen() binds synchronously, so supertest finds the address and does not listen again.
    // as the fake's own server serves it: the kept-answer lane first, where the app has one
    server = createServer(requestListener(app)).listen(0, '127.0.0.1');
    listening.set(app, server);
  }
  return server;
}

/** Stops every server serverOf started. */
export async function closeListeningServers(): Promise<void> {
  const servers = [...listening.values()];
  listening.clear();
  await Promise.all(servers.map((server) => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(resolve);
  })));
}

/** A supertest agent that always sends the same Host, so tokens (issuer, audience) stay valid across requests. */
export function http(app: Express, host = HOST) {
  return request.agent(serverOf(app)).set('Host', host);
}

export interface TokenRequestFields {
  client_id?: string;
  client_secret?: string;
  audience?: string;
  scope?: string;
  grant_type?: string;
}

export function requestToken(app: Express, fields: TokenRequestFields = {}, host = HOST) {
  return http(app, host)
    .post('/oauth2/token')
    .type('form')
    .send({
      grant_type: 'client_credentials',
      scope: 'openid offline',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: host,
      ...fields,
    });
}

export async function tokenFor(app: Express, fields: TokenRequestFields = {}, host = HOST): Promise<string> {
  const response = await requestToken(app, fields, host);
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_token as string;
}

/** An app and a bearer-authenticated agent for it. */
export async function signedIn(options: FakeOptions = {}, fields: TokenRequestFields = {}) {
  const app = testApp(options);
  const token = await tokenFor(app, fields);
  const get = (path: string) => http(app).get(path).set('Authorization', `Bearer ${token}`);
  return { app, token, get };
}
