// Shadow mode between two worlds: a request naming a record only one of them holds is not comparable, with its
// reason, never a difference (a cancel of the twin's seeded order, 404 upstream against 409, is not the fake's fault).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import type { Schemas } from '../../src/api/types.js';

type Report = Schemas['FidelityReport'];
const fidelityOf = async (fake: FakeServer): Promise<Report> =>
  (await (await fetch(`${fake.url}/__control/fidelity`)).json()) as Report;

describe('shadow mode in front of an upstream whose world is not the twin’s', () => {
  let upstream: FakeServer;
  let shadow: FakeServer;
  let token: string;
  const cancel = (orderId: string) =>
    fetch(`${shadow.url}/v1/orders/${orderId}/`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
  beforeAll(async () => {
    // two seeds: the upstream's orders are not the twin's, and the twin's seeded orders are not the upstream's
    upstream = await startServer({ seed: 7 });
    shadow = await startServer({ seed: 8, upstream: upstream.url });
    const form = new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'openid offline read:orders write:orders read:accounts',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: new URL(shadow.url).host,
    });
    token = (
      (await (await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: form })).json()) as {
        access_token: string;
      }
    ).access_token;
  });
  afterAll(async () => {
    await shadow?.stop();
    await upstream?.stop();
  });

  it("reports a cancel of the twin's own seeded order (404 upstream, 409 or 200 in the twin) as not comparable, with the reason", async () => {
    await shadow.control.clearFidelity();
    const twinWorld = shadow.state();
    const upstreamIds = new Set(upstream.state().orders.map((o) => o.id));
    const completed = twinWorld.orders.find((o) => o.status === 'COMPLETED' && !upstreamIds.has(o.id))!;
    const placed = twinWorld.orders.find((o) => o.status === 'PLACED' && !upstreamIds.has(o.id))!;
    // the client is answered by the upstream, which never had them
    expect((await cancel(completed.id)).status).toBe(404);
    expect((await cancel(placed.id)).status).toBe(404);
    const report = await fidelityOf(shadow);
    expect(report).toMatchObject({ exchanges: 2, compared: 0, not_comparable: 2, differences: [] });
    expect(report.not_comparable_exchanges).toEqual([
      expect.objectContaining({
        operation: 'cancelOrder',
        path: `/v1/orders/${completed.id}/`,
        reason: expect.stringMatching(
          new RegExp(
            `"${completed.id}", which the upstream did not issue in this session and does not hold \\(404\\), while the twin's own world \\(its seed\\) does: upstream 404, fake 409`,
          ),
        ),
      }),
      expect.objectContaining({
        operation: 'cancelOrder',
        path: `/v1/orders/${placed.id}/`,
        reason: expect.stringMatching(/upstream 404, fake 200$/),
      }),
    ]);
    // the twin's order stays as it was: the upstream refused the cancel
    expect(shadow.state().orders.find((o) => o.id === placed.id)!.status).toBe('PLACED');
  });

  it("reports a cancel of the upstream's own order (the twin answers 404) as not comparable", async () => {
    await shadow.control.clearFidelity();
    const twinIds = new Set(shadow.state().orders.map((o) => o.id));
    const theirs = upstream.state().orders.filter((o) => !twinIds.has(o.id));
    const filled = theirs.find((o) => o.status === 'COMPLETED')!;
    expect((await cancel(filled.id)).status).toBe(409);
    const report = await fidelityOf(shadow);
    expect(report).toMatchObject({ not_comparable: 1, differences: [] });
    expect(report.not_comparable_exchanges[0]!.reason).toMatch(
      /a record of the upstream's own world\): upstream 409, fake 404/,
    );
  });

  it("reports a read of the twin's seeded account (404 upstream, 200 in the twin) as not comparable", async () => {
    await shadow.control.clearFidelity();
    const upstreamIds = new Set(upstream.state().accounts.map((a) => a.id));
    const seeded = shadow.state().accounts.find((a) => !upstreamIds.has(a.id))!;
    expect(
      (await fetch(`${shadow.url}/v1/accounts/${seeded.id}`, { headers: { authorization: `Bearer ${token}` } })).status,
    ).toBe(404);
    const report = await fidelityOf(shadow);
    expect(report).toMatchObject({ not_comparable: 1, differences: [] });
    expect(report.not_comparable_exchanges[0]).toMatchObject({
      operation: 'getAccount',
      reason: expect.stringMatching(/its seed\) does: upstream 404, fake 200$/),
    });
  });

  it('compares an id the partner made up: 404 on both sides, they agree', async () => {
    await shadow.control.clearFidelity();
    expect((await cancel('00000000-0000-4000-8000-00000000abcd')).status).toBe(404);
    expect(await fidelityOf(shadow)).toMatchObject({
      exchanges: 1,
      compared: 1,
      agreed: 1,
      not_comparable: 0,
      differences: [],
    });
  });
});
