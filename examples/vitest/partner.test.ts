// How a partner uses the fake inside a vitest suite: one instance for the file, a fresh world per test.
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { startServer, type FakeServer } from 'investment-api-fake';

let fake: FakeServer;
let token: string;

beforeAll(async () => {
  fake = await startServer({ seed: 1 });
  token = await fake.token();
});
beforeEach(() => fake.reset());
afterAll(() => fake.stop());

it('lists the subscribeable assets of the catalog', async () => {
  const response = await fetch(`${fake.url}/v1/assets?subscribeable=true`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: { isin: string; subscribeable: boolean }[] };
  expect(data.length).toBeGreaterThan(0);
  expect(data.every((asset) => asset.subscribeable)).toBe(true);
});
