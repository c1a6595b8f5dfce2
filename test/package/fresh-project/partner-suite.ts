// Copied as fake.test.ts into a fresh project that installed the packed tarball: the library as a partner's suite uses it.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer, type FakeServer } from 'investment-api-fake';

let fake: FakeServer;
beforeAll(async () => { fake = await startServer({ seed: 1 }); });
afterAll(() => fake.stop());

it('serves the catalog to a token from the default client', async () => {
  const token = await fake.token();
  const response = await fetch(`${fake.url}/v1/share-classes?limit=2`, { headers: { authorization: `Bearer ${token}` } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: unknown[] };
  expect(body.data).toHaveLength(2);
});

it('drives an order through the typed helpers', () => {
  const order = fake.state().orders.find((o) => o.status === 'PLACED');
  expect(order).toBeDefined();
  expect(fake.setOrderStatusSync(order!.id, 'CANCELLED').status).toBe('CANCELLED');
});
