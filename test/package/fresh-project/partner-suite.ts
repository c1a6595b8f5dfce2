// Copied as fake.test.ts into a fresh project that installed the packed tarball: the library as a partner's suite uses it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type FakeServer } from 'investment-api-fake';
import { matchers } from 'investment-api-fake/vitest';

expect.extend(matchers);

let fake: FakeServer;
beforeAll(async () => {
  fake = await startServer({ seed: 1 });
});
afterAll(() => fake.stop());

it('serves the catalog to a token from the default client', async () => {
  const token = await fake.token();
  const response = await fetch(`${fake.url}/v1/share-classes?limit=2`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: unknown[] };
  expect(body.data).toHaveLength(2);
});

it('drives an order through the typed helpers', () => {
  const order = fake.state().orders.find((o) => o.status === 'PLACED');
  expect(order).toBeDefined();
  expect(fake.setOrderStatusSync(order!.id, 'CANCELLED').status).toBe('CANCELLED');
});

it('proves what the client sent and that nothing in it would hurt in production', async () => {
  fake.reset();
  const token = await fake.token();
  await fetch(`${fake.url}/v1/orders?order_status=PLACED`, { headers: { authorization: `Bearer ${token}` } });
  expect(fake).toHaveReceived({ operation: 'listOrders', query: { order_status: 'PLACED' } }, { at_least: 1 });
  await expect(fake.control).toHaveReceived({ method: 'GET', path: '/v1/orders' }, { exactly: 1 });
  expect(() => expect(fake).toHaveReceived({ operation: 'listOrders', query: { order_status: 'COMPLETED' } })).toThrow(
    /query\.order_status: expected "COMPLETED", got "PLACED"/,
  );
  // the report covers the whole journal, the first test's full page read included: this test's part is since the reset
  expect(fake).toHaveNoReadinessFindings({ since: 'reset' });
  expect(() => expect(fake).toHaveNoReadinessFindings()).toThrow(/first_page_only/);
});
