import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';

// A partner's typed client generated from the document by @hey-api/openapi-ts, with nothing written by hand but the
// calls: the partner's flow runs against a fake as generated, and the generated types refuse a field of the other
// account type at compile time. .ci/run installs the generator with TypeScript 5 (it crashes on TypeScript 7) in a
// folder of its own, named by HEY_API_DIR. Locally the tests are skipped without it; under CI=true they fail, never
// skip.
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const ci = process.env.CI === 'true';
const tools = process.env.HEY_API_DIR;
const generator = tools && join(tools, 'node_modules/@hey-api/openapi-ts/bin/run.js');
const tsc = tools && join(tools, 'node_modules/typescript/bin/tsc');
const available = generator !== undefined && existsSync(generator) && existsSync(tsc!);

function run(file: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

// strict, no skipLibCheck: the generated code compiles as a partner's own would
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'commonjs',
    moduleResolution: 'node10',
    lib: ['ES2022', 'DOM', 'DOM.Iterable'],
    types: [],
    strict: true,
    outDir: 'out',
  },
};

// The partner's flow, through the generated functions only: a token, the accounts, a new account with its wallet
// and payment method, an order placed for it (the control plane: placement is not part of the real interface), the
// order cancelled at its documented path, trailing slash included. The base URL is the one the served document names.
const FLOW = `import { client } from './gen/client.gen';
import { cancelOrder, createAccount, createToken, getShareClass, listAccounts, listAssets, placeOrder } from './gen';

async function main(): Promise<void> {
  const audience = new URL(client.getConfig().baseUrl ?? '').host;
  const token = await createToken({
    body: { grant_type: 'client_credentials', scope: 'openid offline', client_id: 'sandbox-client', client_secret: 'sandbox-secret', audience },
    throwOnError: true,
  });
  client.setConfig({ auth: (scheme) => (scheme.key === 'oauth2' ? token.data.access_token : undefined) });
  const accounts = await listAccounts({ query: { limit: 5 }, throwOnError: true });
  const account = await createAccount({
    body: {
      type: 'individual',
      first_name: 'Ada',
      last_name: 'Lovelace',
      wallets: [{ wallet_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', is_primary: true }],
      payment_methods: [{ type: 'sepa', iban: 'DE89370400440532013000', account_holder_name: 'Ada Lovelace', is_primary: true }],
    },
    throwOnError: true,
  });
  const assets = await listAssets({ query: { subscribeable: true }, throwOnError: true });
  const asset = assets.data.data[0];
  if (!asset) throw new Error('no subscribeable asset');
  const shareClass = await getShareClass({ path: { isin: asset.isin }, throwOnError: true });
  const order = await placeOrder({
    body: {
      account_id: account.data.id,
      isin: asset.isin,
      side: 'BUY',
      market: 'PRIMARY',
      amount_of_units: 1,
      value: Math.max(shareClass.data.min_investment ?? 0, 10_000),
    },
    throwOnError: true,
  });
  const cancelled = await cancelOrder({ path: { order_id: order.data.id }, throwOnError: true });
  console.log(JSON.stringify({
    token_type: token.data.token_type,
    accounts: accounts.data.data.length,
    created: account.data.type,
    placed: order.data.status,
    cancelled: cancelled.data.status,
    cancel_url: cancelled.request.url,
  }));
}

main().catch((error: unknown) => {
  console.error(error);
  throw error;
});
`;

// A field of the other account type: the generated AccountCreate is one shape per type, so this must not compile.
const WRONG_TYPE = `import { createAccount } from './gen';

export const wrong = createAccount({ body: { type: 'individual', business_name: 'Acme Ltd' } });
`;

describe('a client generated from the document by @hey-api/openapi-ts', () => {
  let fake: FakeServer;
  let work: string;
  beforeAll(async () => {
    fake = await startServer({ logLevel: 'silent' });
    work = mkdtempSync(join(tmpdir(), 'hey-api-'));
  });
  afterAll(async () => {
    await fake.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('is given where CI runs', () => {
    if (ci)
      expect(available, 'HEY_API_DIR must hold @hey-api/openapi-ts and typescript (.ci/run installs both)').toBe(true);
  });

  it.skipIf(!available && !ci)(
    'from the file, calls the CLI’s default port: a base URL Node can fetch, none to set',
    { timeout: 240_000 },
    async () => {
      const generated = await run(
        process.execPath,
        [generator!, '-i', join(ROOT, 'src/api/openapi.yaml'), '-o', join(work, 'from-file')],
        work,
      );
      expect(generated.code, generated.output).toBe(0);
      expect(readFileSync(join(work, 'from-file/client.gen.ts'), 'utf8')).toContain("baseUrl: 'http://localhost:8080'");
    },
  );

  it.skipIf(!available && !ci)(
    'from the served document, makes a partner’s flow as generated, trailing-slash cancel included, and refuses business_name on an individual at compile time',
    { timeout: 240_000 },
    async () => {
      const generated = await run(process.execPath, [generator!, '-i', `${fake.url}/openapi.json`, '-o', 'gen'], work);
      expect(generated.code, generated.output).toBe(0);
      writeFileSync(join(work, 'tsconfig.json'), JSON.stringify({ ...TSCONFIG, files: ['flow.ts'] }));
      writeFileSync(join(work, 'flow.ts'), FLOW);
      const compiled = await run(process.execPath, [tsc!, '-p', 'tsconfig.json'], work);
      expect(compiled.code, compiled.output).toBe(0);
      const flow = await run(process.execPath, [join(work, 'out/flow.js')], work);
      expect(flow.code, flow.output).toBe(0);
      const result = JSON.parse(flow.output.trim().split('\n').at(-1)!);
      expect(result).toEqual({
        token_type: 'Bearer',
        accounts: 5,
        created: 'individual',
        placed: 'PLACED',
        cancelled: 'CANCELLED',
        cancel_url: expect.stringMatching(new RegExp(`^${fake.url}/v1/orders/[0-9a-f-]{36}/$`)),
      });

      writeFileSync(join(work, 'tsconfig.wrong.json'), JSON.stringify({ ...TSCONFIG, files: ['wrong.ts'] }));
      writeFileSync(join(work, 'wrong.ts'), WRONG_TYPE);
      const refused = await run(process.execPath, [tsc!, '-p', 'tsconfig.wrong.json', '--noEmit'], work);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/wrong\.ts\(\d+,\d+\): error TS2353: .*'business_name' does not exist/);
    },
  );
});
