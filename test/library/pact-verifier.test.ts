import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Verifier } from '@pact-foundation/pact';
import { startServer, type FakeServer } from '../../src/index.js';
import { partnerSession } from '../support/pact-session.js';

process.env.PACT_DO_NOT_TRACK = 'true';

/** Pact's own verifier against a fake, as a provider's CI runs it: a real token as a custom header, the fake's state-change URL. */
async function verify(pactFile: string, fake: FakeServer): Promise<void> {
  const token = await fake.token();
  await new Verifier({
    provider: 'investment-platform',
    providerBaseUrl: fake.url,
    pactUrls: [pactFile],
    providerStatesSetupUrl: `${fake.url}/__control/pact/provider-states`,
    customProviderHeaders: { Authorization: `Bearer ${token}` },
    // the token's issuer is the fake's own address: the verifier's proxy must keep it as the Host
    changeOrigin: true,
    logLevel: 'error',
  }).verifyProvider();
}

let session: FakeServer;
let contract: Record<string, any>;
const dir = mkdtempSync(join(tmpdir(), 'pact-'));

beforeAll(async () => {
  session = await startServer({ port: 0, seed: 1 });
  await partnerSession(session);
  contract = JSON.parse(session.exportRequests('pact', { consumer: 'partner-app' }));
});
afterAll(() => session.stop());

describe('a session exported as a Pact contract', () => {
  it("is verified by Pact's verifier against a fresh fake of another world", async () => {
    const file = join(dir, 'partner-app-investment-platform.json');
    writeFileSync(file, JSON.stringify(contract));
    const fresh = await startServer({ port: 0, seed: 7 });
    try {
      await verify(file, fresh);
    } finally {
      await fresh.stop();
    }
  }, 60_000);

  it('fails verification when an answer is expected with a field the platform does not have', async () => {
    const broken = structuredClone(contract);
    const read = broken.interactions.find((i: any) => i.request.method === 'GET' && i.description.startsWith('GET /v1/accounts/{account_id} '));
    const { first_name, ...rest } = read.response.body.content;
    read.response.body.content = { ...rest, firstName: first_name };
    const file = join(dir, 'broken.json');
    writeFileSync(file, JSON.stringify(broken));
    const fresh = await startServer({ port: 0, seed: 7 });
    try {
      await expect(verify(file, fresh)).rejects.toThrow();
    } finally {
      await fresh.stop();
    }
  }, 60_000);
});
