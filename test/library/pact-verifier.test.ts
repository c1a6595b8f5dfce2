// biome-ignore-all lint/suspicious/noExplicitAny: the test reads deep into a Pact contract's JSON, as written
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Verifier } from '@pact-foundation/pact';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { partnerSession } from '../support/pact-session.js';

// Pact's own verifier (a dev dependency), its usage reporting off (vitest.config.ts sets it for every test too)
process.env.PACT_DO_NOT_TRACK = 'true';

/** Pact's verifier against a fake, as docs/pact.md's script runs it (test/e2e/pact-verify-script.test.ts runs that script as written). */
async function verifyAgainstFake(pactFile: string, fakeUrl: string, token: string, clientId: string): Promise<void> {
  await new Verifier({
    provider: 'investment-platform',
    providerBaseUrl: fakeUrl,
    pactUrls: [pactFile],
    providerStatesSetupUrl: `${fakeUrl}/__control/pact/provider-states?client_id=${encodeURIComponent(clientId)}`,
    customProviderHeaders: { Authorization: `Bearer ${token}` },
    changeOrigin: true,
    logLevel: 'error',
  }).verifyProvider();
}

const PARTNER = { client_id: 'partner-app', client_secret: 'partner-app-secret' };

/** A fake nobody used, of another world (seed) than the session's, with the partner's client beside the default one. */
const freshFake = () =>
  startServer({
    port: 0,
    seed: 7,
    clients: [{ client_id: 'sandbox-client', client_secret: 'sandbox-secret' }, PARTNER],
  });

let session: FakeServer;
let contract: Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), 'pact-'));

beforeAll(async () => {
  session = await startServer({ port: 0, seed: 1 });
  await partnerSession(session);
  contract = JSON.parse(session.exportRequests('pact', { consumer: 'partner-app' }));
});
afterAll(() => session.stop());

async function verifiedOnFreshFake(pact: unknown): Promise<void> {
  const file = join(dir, `pact-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(pact));
  const fresh = await freshFake();
  try {
    await verifyAgainstFake(file, fresh.url, await fresh.token(PARTNER.client_id), PARTNER.client_id);
  } finally {
    await fresh.stop();
  }
}

describe('a session exported as a Pact contract, verified by Pact', () => {
  it("uses Pact as a dev dependency only, its usage reporting off: the package's users never install it", () => {
    expect(process.env.PACT_DO_NOT_TRACK).toBe('true');
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    expect(manifest.devDependencies?.['@pact-foundation/pact']).toBeDefined();
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'])
      expect(manifest[field]?.['@pact-foundation/pact'], field).toBeUndefined();
  });

  it('covers the session: states, an error answer, lists and a cancel', () => {
    const names = contract.interactions.flatMap((i: any) => (i.providerStates ?? []).map((s: any) => s.name));
    expect(new Set(names)).toEqual(
      new Set([
        'an account exists',
        'a wallet exists',
        'payment method details exist',
        'an order exists in status PLACED',
        'an order exists in status CANCELLED',
        'an asset exists',
        'a feeder fund exists',
        'a custom offering exists',
      ]),
    );
    expect(contract.interactions.map((i: any) => i.response.status)).toEqual(
      expect.arrayContaining([200, 201, 404, 409]),
    );
  });

  it("passes Pact's verifier against a fresh fake of another world, through its state-change URL", async () => {
    await verifiedOnFreshFake(contract);
  }, 60_000);

  it('fails it when an answer is expected with a field renamed', async () => {
    const broken = structuredClone(contract);
    const read = broken.interactions.find((i: any) => i.description === 'GET /v1/accounts/{account_id} answers 200');
    const { first_name: firstName, ...rest } = read.response.body.content;
    read.response.body.content = { ...rest, firstName };
    await expect(verifiedOnFreshFake(broken)).rejects.toThrow();
  }, 60_000);

  it('fails it when a refused cancel is expected with another problem code', async () => {
    const broken = structuredClone(contract);
    const refused = broken.interactions.find(
      (i: any) => i.description === 'DELETE /v1/orders/{order_id}/ answers 409 order_not_cancellable',
    );
    refused.response.body.content.code = 'order_cancelled';
    await expect(verifiedOnFreshFake(broken)).rejects.toThrow();
  }, 60_000);
});
