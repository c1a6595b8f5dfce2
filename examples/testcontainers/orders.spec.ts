// The fake's image started from a test with its Testcontainers module (`investment-api-fake/testcontainers`, with
// `testcontainers` installed beside it). Named *.spec.ts so that the plain `examples` project (Node alone) leaves it
// out: it needs a Docker engine and runs in `npm run test:container`. FAKE_IMAGE picks the image (default: the
// published one of the package's version). On an engine without a bridge network the module shares the host's.
import { InvestmentApiFakeContainer, type StartedInvestmentApiFakeContainer } from 'investment-api-fake/testcontainers';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

let fake: StartedInvestmentApiFakeContainer;

beforeAll(async () => {
  fake = await new InvestmentApiFakeContainer(process.env.FAKE_IMAGE)
    .withSeed(1)
    .withControlToken('ci-control-token')
    .start();
}, 120_000);
afterAll(() => fake?.stop());
beforeEach(() => fake.control.reset());

const get = async (path: string) =>
  fetch(`${fake.getBaseUrl()}${path}`, { headers: { authorization: `Bearer ${await fake.token()}` } });

it('reads the seeded catalog with a client-credentials token', async () => {
  const response = await get('/v1/share-classes?limit=2');
  expect(response.status).toBe(200);
  expect(((await response.json()) as { data: unknown[] }).data).toHaveLength(2);
});

it('answers an injected 503 the way production would under load', async () => {
  await fake.control.addFault({ method: 'GET', path: '/v1/orders', status: 503, count: 1 });
  const first = await get('/v1/orders');
  expect(first.status).toBe(503);
  expect(first.headers.get('retry-after')).toBe('1');
  expect((await get('/v1/orders')).status).toBe(200);
});
