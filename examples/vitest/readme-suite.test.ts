// The README's "In your own test suite", line for line (test/unit/readme-examples.test.ts checks it): the library in
// this process, a reset before each test, a token asked before every request. The kept token makes it pass its own
// readiness matcher.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer, type FakeServer } from 'investment-api-fake';
import 'investment-api-fake/vitest'; // the matchers, on expect and in its types

let fake: FakeServer;
beforeAll(async () => {
  fake = await startServer({ seed: 1 });
}); // a free port of 127.0.0.1
beforeEach(() => fake.reset()); // the seeded world again
afterAll(() => fake.stop()); // closes every connection; safe twice

// fake.token() before every request: the client's kept token, fetched again only near its expiry
const api = async (path: string) =>
  fetch(`${fake.url}${path}`, { headers: { Authorization: `Bearer ${await fake.token()}` } });

it('reads the catalog', async () => {
  const response = await api('/v1/share-classes?limit=100');
  expect(response.status).toBe(200);
});

it('follows the orders, and sends nothing that would hurt in production', async () => {
  for (const status of ['PLACED', 'AWAITING_PAYMENT', 'COMPLETED'])
    expect((await api(`/v1/orders?order_status=${status}&limit=100`)).status).toBe(200);
  expect(fake).toHaveNoReadinessFindings(); // the matchers: docs/test-suites.md
});
