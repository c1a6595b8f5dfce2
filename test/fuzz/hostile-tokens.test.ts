import fc from 'fast-check';
import type { Response } from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { http, testApp, tokenFor } from '../support/test-app.js';
import { mutationsOf, type Mutation } from '../support/token-mutations.js';
import { propertyRuns } from '../support/runs.js';

/**
 * No 5xx from any input: an Authorization header that is not a valid token of this instance answers
 * 401 `invalid_token` with `WWW-Authenticate`, on a read, a write and the control plane, and changes nothing.
 */
const RUNS = propertyRuns(300);
const SEED = Number(process.env.FUZZ_SEED ?? 20261128);
const OPERATOR = 'operator-secret';

let app: Express;
/** The partner's token: the API scopes and `control`, so one token opens all three calls. */
let valid: string;

beforeAll(async () => {
  app = testApp({
    controlToken: OPERATOR,
    clients: [
      {
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        scopes: ['read:accounts', 'write:accounts', 'control'],
      },
    ],
  });
  valid = await tokenFor(app, { scope: 'openid offline control' });
});

const calls = {
  read: (token: string) => http(app).get('/v1/accounts').set('Authorization', `Bearer ${token}`),
  write: (token: string) =>
    http(app).post('/v1/accounts').set('Authorization', `Bearer ${token}`).send({ type: 'individual' }),
  control: (token: string) => http(app).get('/__control/state').set('Authorization', `Bearer ${token}`),
};

function expectInvalidToken(response: Response, what: string): void {
  expect(response.status, `${what} → ${response.status} ${response.text.slice(0, 300)}`).toBe(401);
  expect(response.body.code, what).toBe('invalid_token');
  expect(response.headers['www-authenticate'], what).toMatch(
    /^Bearer error="invalid_token", error_description="[^"]+"$/,
  );
}

const accountsOfTheTenant = async (): Promise<unknown> =>
  (await http(app).get('/__control/state').set('Authorization', `Bearer ${OPERATOR}`)).body.accounts;

describe('a valid token', () => {
  it('opens the read, the write and the control call the mutations below are sent to', async () => {
    expect((await calls.read(valid)).status).toBe(200);
    expect((await calls.control(valid)).status).toBe(200);
  });
});

describe('tokens a byte or a few away from a valid one', () => {
  it('the payload cut by 1 to 13 characters, or with a character added, answers 401 invalid_token everywhere, MCP included', async () => {
    const [header, payload, signature] = valid.split('.') as [string, string, string];
    const before = await accountsOfTheTenant();
    const mutated = [
      ...Array.from({ length: 13 }, (_, i) => ({
        name: `payload cut by ${i + 1}`,
        token: `${header}.${payload.slice(0, -(i + 1))}.${signature}`,
      })),
      { name: 'payload with a character added', token: `${header}.${payload}A.${signature}` },
      {
        name: 'payload with a character added inside',
        token: `${header}.${payload.slice(0, 10)}x${payload.slice(10)}.${signature}`,
      },
    ];
    for (const { name, token } of mutated) {
      for (const [call, send] of Object.entries(calls)) expectInvalidToken(await send(token), `${call}: ${name}`);
      const mcp = await http(app)
        .post('/__control/mcp')
        .set({ Authorization: `Bearer ${token}`, Accept: 'application/json, text/event-stream' })
        .send({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
        });
      expectInvalidToken(mcp, `mcp: ${name}`);
    }
    expect(await accountsOfTheTenant()).toEqual(before);
  });
});

describe('an open control plane (no CONTROL_TOKEN)', () => {
  it('refuses the issue’s tokens, a token of another issuer and credentials that are no token at all, as the API does', async () => {
    const open = testApp({
      clients: [{ client_id: 'sandbox-client', client_secret: 'sandbox-secret', scopes: ['read:accounts', 'control'] }],
    });
    const token = await tokenFor(open, { scope: 'openid offline control' });
    const [header, payload, signature] = token.split('.') as [string, string, string];
    for (const cut of [1, 7, 13]) {
      expectInvalidToken(
        await http(open)
          .get('/__control/state')
          .set('Authorization', `Bearer ${header}.${payload.slice(0, -cut)}.${signature}`),
        `payload cut by ${cut}`,
      );
    }
    expectInvalidToken(
      await http(open).get('/__control/state').set('Authorization', `Bearer ${header}.${payload}A.${signature}`),
      'a character added',
    );
    // the token of another fake is no token of this instance; only in shadow mode is it ignored there
    expectInvalidToken(
      await http(open).get('/__control/state').set('Authorization', `Bearer ${valid}`),
      'another issuer',
    );
    for (const credentials of ['Bearer not-a-token', 'Basic c2FuZGJveC1jbGllbnQ6c2FuZGJveC1zZWNyZXQ=', 'Bearer']) {
      expectInvalidToken(await http(open).get('/__control/state').set('Authorization', credentials), credentials);
    }
    expect((await http(open).get('/__control/state')).status).toBe(200);
  });
});

describe('any token mutated', () => {
  it(`answers ${RUNS} mutations of a valid token with 401 invalid_token on a read, a write and a control call, changing nothing`, async () => {
    const before = await accountsOfTheTenant();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(mutationsOf(valid), async ({ name, token }: Mutation) => {
        expect(token, name).not.toBe(valid);
        for (const [call, send] of Object.entries(calls)) expectInvalidToken(await send(token), `${call}: ${name}`);
        sent++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    expect(sent).toBe(RUNS);
    expect(await accountsOfTheTenant()).toEqual(before);
    // the valid token still works: nothing a mutation did reached the tenant
    expect((await calls.read(valid)).status).toBe(200);
  }, 120_000);
});
