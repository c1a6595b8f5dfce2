import { createServer, type Server } from 'node:http';
import type { Express } from 'express';
import request from 'supertest';
import { buildApp } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { createApp } from '../../src/satellites.js';
import type { AnswerMismatch } from '../../src/api/document.js';
import type { FakeOptions } from '../../src/config.js';
import type { World } from '../../src/api/types.js';

export const HOST = 'fake.test';

/** Answers of the tests' apps that do not match the document, since the last check (test/support/close-servers.ts). */
const mismatches: AnswerMismatch[] = [];

/** The mismatches seen since the last call, which forgets them. */
export function takeAnswerMismatches(): AnswerMismatch[] {
  return mismatches.splice(0);
}

/**
 * Every test app checks each of its answers against the OpenAPI document once it is sent, on the very path the CLI
 * serves: a mismatch fails the test that made it (test/support/close-servers.ts).
 */
export function testApp(options: FakeOptions = {}): Express {
  // `.test` names are not localhost names: the tests' hosts are allowed like a partner's ALLOWED_HOSTS would.
  const all: FakeOptions = {
    validateResponses: (mismatch) => void mismatches.push(mismatch),
    allowedHosts: ['.test'],
    ...options,
  };
  // the core's own tests, run on the core alone (`npm run test:core`): no satellite attached
  return process.env.FAKE_CORE_ONLY === '1' ? buildApp(createContext(all), { partial: true }) : createApp(all);
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
    server = createServer(app).listen(0, '127.0.0.1');
    listening.set(app, server);
  }
  return server;
}

/** Stops every server serverOf started. */
export async function closeListeningServers(): Promise<void> {
  const servers = [...listening.values()];
  listening.clear();
  await Promise.all(
    servers.map(
      (server) =>
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(resolve);
        }),
    ),
  );
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
  if (response.status !== 200)
    throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_token as string;
}

/** The header that presents `token`. */
export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An app signed in as its default client: its token, a GET that presents it, and its world as the control plane reads it. */
export async function signedIn(options: FakeOptions = {}, fields: TokenRequestFields = {}) {
  const app = testApp(options);
  const token = await tokenFor(app, fields);
  const get = (path: string) => http(app).get(path).set(bearer(token));
  const world = (await http(app).get('/__control/state').expect(200)).body as World;
  return { app, token, get, world };
}

export type SignedIn = Awaited<ReturnType<typeof signedIn>>;
