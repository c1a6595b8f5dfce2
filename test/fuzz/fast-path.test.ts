import { request as httpRequest, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { PipelineOptions } from '../../src/app.js';
import { createContext } from '../../src/context.js';
import { productApp } from '../../src/satellites.js';
import type { Tenant } from '../../src/domain/tenants.js';
import { tokenFor } from '../support/test-app.js';
import { propertyRuns } from '../support/runs.js';

/**
 * The parameter check of operations without a body (src/http/parameter-check.ts) answers exactly what
 * express-openapi-validator's middleware answers: the same status and body for generated queries, valid, invalid,
 * unknown, empty, repeated, coercible and oddly encoded, each server in its own instance of the default world.
 */
const RUNS = propertyRuns(3000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261125);

const ACCOUNT = 'b3a8a3f0-0000-4000-8000-000000000000';
interface Target {
  name: string;
  port: number;
  token: string;
  server: Server;
  tenant: Tenant;
}
const targets: Target[] = [];
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

async function start(name: string, pipeline: PipelineOptions): Promise<Target> {
  const ctx = createContext({ allowedHosts: ['.test'] });
  const app = productApp(ctx, { pipeline });
  const token = await tokenFor(app);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    name,
    port: (server.address() as AddressInfo).port,
    token,
    server,
    tenant: ctx.tenants.get('sandbox-client'),
  };
}

function get(target: Target, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port: target.port,
        path,
        headers: { host: 'fake.test', authorization: `Bearer ${target.token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

let world: {
  accountId: string;
  walletAccount: string;
  pmAccount: string;
  pmId: string;
  isin: string;
  abbreviation: string;
};

beforeAll(async () => {
  targets.push(await start('validator only', { parameters: 'validator' }), await start('parameter check', {}));
  // every clock frozen at one instant (after the tokens were issued): links expire alike on each
  const now = new Date(Math.ceil(Date.now() / 1000) * 1000 + 1000).toISOString();
  for (const target of targets) target.tenant.changeClock({ now, frozen: true });
  const state = createContext().tenants.get('sandbox-client').store;
  const pm = state.paymentMethodDetails[0]!;
  world = {
    accountId: state.accounts[0]!.id,
    walletAccount: state.wallets[0]!.account_id,
    pmAccount: pm.account_id,
    pmId: pm.id,
    isin: state.assets[0]!.isin,
    abbreviation: state.feederFunds[0]!.abbreviation,
  };
});

afterAll(async () => {
  agent.destroy();
  await Promise.all(targets.map((t) => new Promise((resolve) => t.server.close(resolve))));
});

// Query names: each operation's own, their near misses, bracket and case variants, and none at all.
const NAMES = [
  'limit',
  'skip',
  'side',
  'market',
  'order_status',
  'account_type',
  'account_id',
  'currency',
  'isin',
  'external_id',
  'wallet_address',
  'is_primary',
  'abbreviation',
  'name',
  'feeder_fund_id',
  'subscribeable',
  'redeemable',
  'tradeable',
  'share_class_id',
  'LIMIT',
  'limit[0]',
  'limit%5B%5D',
  'foo',
  '',
  'lim%69t',
];
const VALUES = [
  '',
  '0',
  '1',
  '2',
  '10',
  '100',
  '1000',
  '1001',
  '-1',
  '-0',
  '01',
  '1.0',
  '1.5',
  '1e2',
  '0x10',
  '%201',
  '1%20',
  '+1',
  '1,2',
  'true',
  'false',
  'True',
  '1%2C2',
  'BUY',
  'SELL',
  'buy',
  'PLACED',
  'COMPLETED',
  'individual',
  'business',
  'PRIMARY',
  'EUR',
  'eur',
  ACCOUNT,
  ACCOUNT.toUpperCase(),
  `${ACCOUNT}x`,
  'a:b',
  'a/b',
  '%3A',
  '%',
  '%2',
  '%zz',
  '%E0%A4%A',
  '%C3%A9',
  'caf%C3%A9',
  '~._-',
  'a%26b',
  'a=b',
  '[]',
  'null',
  '%00',
  'x'.repeat(300),
  // integers only in decimal digits (docs/api.md): what Number() reads, which both paths refuse alike; and digits encoded
  '0x10',
  '1e3',
  '+5',
  '%2B5',
  '%205',
  '5%20',
  '5.0',
  '0b1',
  '0o7',
  '1_000',
  'Infinity',
  '-%31',
  '%31%30',
  '%EF%BC%95',
  '00',
  '-',
];
// Values each name takes when valid (or coercible): two thirds of the generated values are drawn from these.
const VALID = (): Record<string, string[]> => ({
  limit: ['1', '10', '100', '1000', '01', '0x10', '5.0', '%31%30'],
  skip: ['0', '2', '1000', '1e3', '+5', '-%31'],
  side: ['BUY', 'SELL'],
  market: ['PRIMARY', 'SECONDARY'],
  order_status: ['PLACED', 'COMPLETED', 'CANCELLED'],
  account_type: ['individual', 'business'],
  account_id: [world.accountId, ACCOUNT],
  currency: ['EUR', 'USD'],
  isin: [world.isin, 'XX0000000000'],
  external_id: ['user_1', 'caf%C3%A9'],
  is_primary: ['true', 'false'],
  subscribeable: ['true', 'false'],
  redeemable: ['true', 'false'],
  tradeable: ['true'],
  abbreviation: [world.abbreviation],
  name: ['x'],
  share_class_id: [ACCOUNT],
  feeder_fund_id: [ACCOUNT],
});
const PATH_VALUES = () => [
  world.accountId,
  world.walletAccount,
  ACCOUNT,
  'not-a-uuid',
  world.isin,
  'XX0000000000',
  'caf%C3%A9',
  '%zz',
];

const PAGE = ['skip', 'limit'];
// each read with its own query names: most generated names are the operation's own
const operations = (): [string, string[]][] => [
  ['/v1/orders', ['side', 'market', 'order_status', 'account_type', 'account_id', 'currency', 'isin', ...PAGE]],
  ['/v1/accounts', ['external_id', 'account_type', ...PAGE]],
  ['/v1/accounts/{a}', []],
  ['/v1/accounts/{a}/wallets', ['wallet_address', 'is_primary', ...PAGE]],
  [`/v1/accounts/${world.pmAccount}/payment-method-details/${world.pmId}`, []],
  ['/v1/accounts/{a}/payment-method-details/{a}', []],
  ['/v1/assets', ['isin', 'currency', 'subscribeable', 'redeemable', 'tradeable', 'share_class_id', ...PAGE]],
  ['/v1/share-classes', ['abbreviation', 'name', 'feeder_fund_id', ...PAGE]],
  ['/v1/share-classes/{a}', []],
  [`/v1/funds/${world.abbreviation}/documents`, PAGE],
];

// Links are signed with each instance's own secret: compared without their signature.
const comparable = (body: string): string => body.replace(/signature=[0-9a-f]{64}/g, 'signature=…');

it(`answers ${RUNS} generated reads alike through the validator and the fast path`, async () => {
  let answeredWithQuery = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: operations().length - 1 }),
      fc.constantFrom(...PATH_VALUES()),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.boolean(),
          fc.constantFrom(...NAMES),
          fc.oneof(fc.constantFrom(...VALUES), fc.constant(undefined), fc.constant(undefined)),
          fc.constantFrom('=', '=', '=', '=', ''),
        ),
        { maxLength: 3 },
      ),
      fc.constantFrom('?', '?', ''),
      async (op, pathValue, pairs, mark) => {
        const [template, own] = operations()[op]!;
        const path = template.replace(/\{a\}/g, pathValue);
        const nameOf = (i: number, anyName: boolean, name: string) =>
          anyName || own.length === 0 ? name : own[i % own.length]!;
        const valid = VALID();
        const query = pairs
          .map(([i, anyName, someName, value, eq]) => {
            const name = nameOf(i, anyName && i % 4 === 0, someName);
            const choices = valid[name] ?? VALUES;
            return `${name}${eq}${eq ? (value ?? choices[i % choices.length]) : ''}`;
          })
          .join('&');
        const url = query === '' ? `${path}${mark}` : `${path}?${query}`;
        const [reference, ...others] = await Promise.all(targets.map((t) => get(t, url)));
        for (const [i, answer] of others.entries()) {
          expect(
            { status: answer!.status, body: comparable(answer!.body) },
            `${targets[i + 1]!.name}: GET ${url}`,
          ).toEqual({ status: reference!.status, body: comparable(reference!.body) });
        }
        if (reference!.status === 200 && query !== '') answeredWithQuery++;
      },
    ),
    { numRuns: RUNS, seed: SEED },
  );
  // the generator reaches both sides: many queries answered (about a tenth at any seed), many refused
  expect(answeredWithQuery).toBeGreaterThan(RUNS / 20);
  expect(answeredWithQuery).toBeLessThan(RUNS * 0.8);
}, 240_000);
