import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/types.js';
import { createControlClient, type ControlClient } from '../../src/index.js';
import { ACCOUNTS_PER_DAY, DAY_ROUNDS, MISTAKES } from '../../src/demo/partner.js';
import { runsDemoPartner } from '../../src/demo/start-partner.js';
import { stoppedAfterEachTest } from '../support/servers.js';
import { stateDirFixtures } from '../support/state-dirs.js';

// The demo partner (CONTRACT 15): under `demo` a simulated partner runs a partner's session against the fake over
// HTTP. It runs on real time, a round every 4 s; here every 10 ms, so a minute of rounds takes seconds.
const start = stoppedAfterEachTest();
const dirs = stateDirFixtures();
const FAST = { demo: true, demoPartnerIntervalMs: 10 } as const;
const PARTNER = 'demo-partner';

type Entry = Schemas['JournalEntry'];
const isToken = (e: Entry) => e.path === '/oauth2/token';
/** Whether the tenant was reset since the start: its journal since the last reset no longer begins where the whole one does. */
const resetSinceStart = async (tenant: ControlClient): Promise<boolean> => {
  const [first] = await tenant.requests({ since: 'start' });
  const [firstSinceReset] = await tenant.requests();
  return first !== undefined && firstSinceReset?.id !== first.id;
};

describe('the demo partner', () => {
  it('is a client of its own, listed as the demo partner, beside the default client', async () => {
    const fake = await start(FAST);
    const clients = await fake.control.clients();
    expect(clients.map((c) => [c.client_id, c.default, c.demo_partner])).toEqual([
      ['sandbox-client', true, undefined],
      [PARTNER, false, true],
    ]);
    const partner = clients.find((c) => c.client_id === PARTNER)!;
    // its secret is drawn by the process, never a fixed one a reader could guess
    expect(partner.client_secret).toMatch(/^[\w-]{24}$/);
    expect(partner.scopes).toContain('control');
    expect(partner.settings).toMatchObject({ order_progression: 'clock', investor_activity_per_hour: 120 });
  });

  it('stays while it runs: removing its client answers 409 client_not_removable, saying why', async () => {
    const fake = await start(FAST);
    const refused = await fake.control.removeClient(PARTNER).then(
      () => undefined,
      (error: unknown) => error as { status: number; problem?: Schemas['Problem'] },
    );
    expect(refused?.status).toBe(409);
    expect(refused?.problem?.code).toBe('client_not_removable');
    expect(refused?.problem?.detail).toMatch(/--demo's partner/);
    expect((await fake.control.clients()).map((c) => c.client_id)).toEqual(['sandbox-client', PARTNER]);
  });

  it('runs a careful session over HTTP: a kept token, accounts and wallets, orders read, some cancelled, and a mistake the report names', async () => {
    const fake = await start(FAST);
    const partner = fake.control.forClient(PARTNER);
    const journal = () => partner.requests({ since: 'start' });
    // until it has cancelled an order and made both of its mistakes
    await expect
      .poll(async () => (await partner.report()).findings.map((f) => f.code).sort(), { timeout: 20_000, interval: 200 })
      .toEqual(Object.values(MISTAKES).sort());
    const entries = await journal();
    const calls = entries.filter((e) => !isToken(e));
    // one token for the API, one for its test rig's control calls: kept, never one per call
    expect(entries.filter(isToken).map((e) => e.status)).toEqual([200, 200]);
    expect(calls.length).toBeGreaterThan(10);
    const created = (path: RegExp) => calls.filter((e) => e.method === 'POST' && path.test(e.path) && e.status === 201);
    expect(created(/^\/v1\/accounts$/).length).toBeGreaterThan(0);
    // each account's wallet right after it (the journal read may fall between the two)
    const [accounts, wallets] = [
      created(/^\/v1\/accounts$/).length,
      created(/^\/v1\/accounts\/[\w-]+\/wallets$/).length,
    ];
    expect(accounts - wallets).toBeGreaterThanOrEqual(0);
    expect(accounts - wallets).toBeLessThanOrEqual(1);
    // orders read page by page and cancelled after a read
    expect(calls.some((e) => e.operation_id === 'listOrders' && e.status === 200)).toBe(true);
    const cancels = calls.filter((e) => e.operation_id === 'cancelOrder');
    expect(cancels.filter((e) => e.status === 200).length).toBeGreaterThan(0);
    expect(cancels.filter((e) => e.status === 409).every((e) => e.code === 'order_not_cancellable')).toBe(true);
    // nothing else a careful client would be told
    const report = await partner.report();
    expect(report.findings.find((f) => f.code === 'first_page_only')?.message).toMatch(/never asked for the next one/);
    expect(report.requests_seen).toBeGreaterThanOrEqual(entries.length);
    // a cancelled order is in its world as such
    expect(fake.state(PARTNER).orders.some((o) => o.status === 'CANCELLED')).toBe(true);
    // the default client saw none of it
    expect(await fake.control.forClient('sandbox-client').requests({ since: 'start' })).toEqual([]);
  }, 30_000);

  it('makes the same choices from the same seed', async () => {
    // what it does first, request by request (its ids aside): account, wallet, reads, in the same order
    const firstRequests = async () => {
      const fake = await start({ ...FAST, seed: 7 });
      const partner = fake.control.forClient(PARTNER);
      await expect
        .poll(async () => (await partner.requests({ since: 'start' })).length, { timeout: 10_000 })
        .toBeGreaterThan(12);
      const entries = (await partner.requests({ since: 'start' })).slice(0, 12);
      return entries.map((e) => `${e.method} ${e.path.replace(/[0-9a-f-]{36}/g, '{id}')} ${e.status}`);
    };
    expect(await firstRequests()).toEqual(await firstRequests());
  }, 30_000);

  it('keeps its world bounded: a new day resets its tenant after DAY_ROUNDS rounds, its accounts never more than a day allows', async () => {
    const fake = await start({ ...FAST, demoPartnerIntervalMs: 1 });
    const partner = fake.control.forClient(PARTNER);
    const fixtures = fake.state(PARTNER).accounts.length;
    let most = 0;
    await expect
      .poll(
        async () => {
          most = Math.max(most, fake.state(PARTNER).accounts.length);
          return resetSinceStart(partner);
        },
        { timeout: 25_000, interval: 100 },
      )
      .toBe(true);
    expect(most).toBeLessThanOrEqual(fixtures + ACCOUNTS_PER_DAY);
    // a day is long enough to show: about ten minutes at the default interval
    expect(DAY_ROUNDS * 4).toBeGreaterThanOrEqual(600);
  }, 30_000);

  it('starts a new day at once when its tenant is full (409 limit_reached), and never passes the limit', async () => {
    const probe = await start({ demo: true, demoPartner: false });
    const world = probe.state();
    const records =
      world.accounts.length + world.wallets.length + world.payment_method_details.length + world.orders.length;
    await probe.stop();
    // room for an account and its payment method, not for its wallet; behind a public base URL and a guarded
    // control plane: its tokens ask for that URL's host, its reset goes through the guard with its own token
    const fake = await start({
      ...FAST,
      maxRecordsPerTenant: records + 2,
      baseUrl: 'https://sandbox.example.com',
      controlToken: 'operator-token',
    });
    const partner = createControlClient({
      url: `http://127.0.0.1:${fake.port}`,
      controlToken: 'operator-token',
      clientId: PARTNER,
    });
    await expect
      .poll(async () => (await partner.requests({ since: 'start' })).some((e) => e.code === 'limit_reached'), {
        timeout: 10_000,
      })
      .toBe(true);
    await expect.poll(() => resetSinceStart(partner), { timeout: 10_000 }).toBe(true);
    const now = fake.state(PARTNER);
    expect(
      now.accounts.length + now.wallets.length + now.payment_method_details.length + now.orders.length,
    ).toBeLessThanOrEqual(records + 2);
  }, 30_000);

  it('after a restart with STATE_DIR, keeps its client and follows the accounts it opened instead of opening them again', async () => {
    const stateDir = dirs.stateDir();
    const first = await dirs.start({ ...FAST, stateDir, demoPartnerIntervalMs: 50 });
    await expect
      .poll(() => first.state(PARTNER).accounts.some((a) => a.external_id === 'demo-partner-0-1'), { timeout: 10_000 })
      .toBe(true);
    const secret = (await first.control.clients()).find((c) => c.client_id === PARTNER)!.client_secret;
    await dirs.stopped(first);
    const second = await dirs.start({ ...FAST, stateDir });
    const partner = second.control.forClient(PARTNER);
    expect((await second.control.clients()).find((c) => c.client_id === PARTNER)).toMatchObject({
      client_secret: secret,
      demo_partner: true,
    });
    // its first round again: the account looked for, found, and followed
    await expect
      .poll(
        async () =>
          (await partner.requests({ since: 'start' })).some(
            (e) => e.operation_id === 'listAccounts' && e.query.external_id === 'demo-partner-0-1',
          ),
        { timeout: 10_000 },
      )
      .toBe(true);
    await expect
      .poll(
        async () => (await partner.requests({ since: 'start' })).filter((e) => e.operation_id === 'listOrders').length,
        { timeout: 10_000 },
      )
      .toBeGreaterThan(1);
    expect(second.state(PARTNER).accounts.filter((a) => a.external_id === 'demo-partner-0-1')).toHaveLength(1);
    expect(
      (await partner.requests({ since: 'start' })).filter((e) => e.status >= 400 && e.code !== 'order_not_cancellable'),
    ).toEqual([]);
  }, 30_000);

  it('stops with the server, its round in flight awaited', async () => {
    const fake = await start(FAST);
    await expect
      .poll(async () => (await fake.control.forClient(PARTNER).requests({ since: 'start' })).length)
      .toBeGreaterThan(3);
    const began = Date.now();
    await fake.stop();
    expect(Date.now() - began).toBeLessThan(3_000);
  });

  it("is never run in shadow mode, where the API is the upstream's", () => {
    expect(runsDemoPartner({ demo: true, tokenTtlSeconds: 3600 })).toBe(true);
    expect(runsDemoPartner({ demo: true, upstream: 'https://sandbox.example.com', tokenTtlSeconds: 3600 })).toBe(false);
    expect(runsDemoPartner({ demo: true, demoPartner: false, tokenTtlSeconds: 3600 })).toBe(false);
  });

  it('is left out with demoPartner: false, and without demo', async () => {
    for (const options of [{ demo: true, demoPartner: false }, {}]) {
      const fake = await start(options);
      expect((await fake.control.clients()).map((c) => c.client_id)).toEqual(['sandbox-client']);
    }
  });
});
