import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, VIEWPORT, WatchedPage } from './support.js';

// `npm run screenshots` (UPDATE_SCREENSHOTS=1) writes the README's pictures to docs/screenshots; the suite takes
// them into a temporary folder, so every run shows the main views still fit 1280×800 without an error.
const DIR =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? new URL('../../docs/screenshots/', import.meta.url).pathname
    : mkdtempSync(join(tmpdir(), 'console-shots-'));

let fake: FakeServer;
let browser: Browser;
let orderId: string;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));
beforeAll(async () => {
  mkdirSync(DIR, { recursive: true });
  // a partner at work: a token, some reads, a 503 it meets and retries, a 404
  const order = fake.state().orders.find((o) => o.status === 'PLACED' && o.side === 'BUY')!;
  orderId = fake.advanceOrderSync(order.id).id;
  const token = await fake.token();
  const get = (path: string) => fetch(fake.url + path, { headers: { authorization: `Bearer ${token}` } });
  await get('/v1/share-classes?limit=2');
  await fake.control.addFault({ method: 'GET', path: '/v1/orders', status: 503, count: 1 });
  await get('/v1/orders?order_status=AWAITING_PAYMENT');
  await new Promise((resolve) => setTimeout(resolve, 1100));
  await get('/v1/orders?order_status=AWAITING_PAYMENT');
  await get(`/v1/accounts/${order.account_id}`);
  await get('/v1/accounts/unknown-account');
});

/** Width and height from a PNG's IHDR chunk. */
const pngSize = (file: string) => {
  const png = readFileSync(file);
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
};

describe('screenshots of the main views at 1280×800', () => {
  it.each([
    ['overview', '/console/', 'Overview of sandbox-client'],
    ['order', () => `/console/orders/${orderId}`, /^BUY /],
    ['requests', '/console/requests', 'Requests'],
    ['catalog', '/console/catalog', 'Catalog'],
    ['connect', '/console/connect', 'Connect your client'],
  ] as const)('%s', async (name, path, heading) => {
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(fake.url + (typeof path === 'function' ? path() : path));
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    await page.locator('header time').filter({ hasText: /UTC$/ }).waitFor();
    // the row whose status is 503 (a duration such as 1.503 ms holds the digits too)
    if (name === 'requests')
      await page
        .locator('table.requests tbody tr', { has: page.locator('.status', { hasText: /^503$/ }) })
        .getByRole('button')
        .click();
    if (name === 'catalog') await page.getByRole('heading', { name: 'Documents' }).scrollIntoViewIfNeeded();
    const file = join(DIR, `${name}.png`);
    await page.screenshot({ path: file });
    expect(pngSize(file)).toEqual(VIEWPORT);
    await watched.close();
  });
});
