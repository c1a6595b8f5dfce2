import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

// The demo sandbox: the console shows orders moving on a running tenant clock, each with the time
// to its next step, and the tenant view switches progression on and off.
let fake: FakeServer;
let browser: Browser;

const settings = { order_step_seconds: { PLACED: 2, AWAITING_PAYMENT: 2, AWAITING_TOKEN_DELIVERY: 2 } };
// the demo partner left out: this file watches the default client's own world
fakeAndBrowserPerFile(
  { demo: true, demoPartner: false, clients: [{ client_id: 'sandbox-client', client_secret: 's', settings }] },
  (opened) => ({ fake, browser } = opened),
);

/** An order the investor places now on an account that can take it. */
function placeOrder() {
  const world = fake.state();
  const asset = world.assets.find((a) => a.subscribeable)!;
  const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)?.min_investment ?? 100_000;
  const account = world.accounts.find(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  )!;
  return fake.placeOrderSync({
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY',
    market: 'PRIMARY',
    amount_of_units: 1,
    value: minimum,
  });
}

describe('a living world in the console', () => {
  it('the orders view shows an order move step by step without a reload, with a countdown to its next step', async () => {
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/orders`);
    await expect
      .poll(() => page.getByTestId('living').textContent())
      .toMatch(/orders take their steps on the tenant clock; end investors place about 120 orders an hour/);
    const order = placeOrder();
    const row = page.locator('tbody tr', { has: page.getByRole('link', { name: order.id.slice(0, 8), exact: true }) });
    await expect.poll(() => row.textContent(), { timeout: 5_000 }).toMatch(/placed.*awaiting payment in 0:0[0-2]/);
    await expect.poll(() => row.locator('.order-status').textContent(), { timeout: 8_000 }).toBe('awaiting payment');
    await expect
      .poll(() => row.getByTestId('next-step').textContent())
      .toMatch(/^awaiting token delivery in 0:0[0-2]$/);
    await expect.poll(() => row.locator('.order-status').textContent(), { timeout: 10_000 }).toBe('completed');
    await expect.poll(() => row.textContent()).toContain('—');
    expect(await seriousViolations(page)).toEqual([]);

    // its page tells the same story, step by step, by progression
    await row.getByRole('link', { name: order.id.slice(0, 8), exact: true }).click();
    const history = page.getByTestId('status-history');
    await expect.poll(() => history.locator('tbody tr').count()).toBe(4);
    expect(await history.locator('tbody tr').last().textContent()).toMatch(/^completed.*progression$/);
    await watched.close();
  }, 40_000);

  it('the tenant view switches progression off and on, and the orders view follows', async () => {
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/tenant`);
    await page.getByLabel('Progression').selectOption('manual');
    await page.getByLabel(/Investor orders an hour/).fill('0');
    await page.getByRole('button', { name: 'Set', exact: true }).click();
    await expect
      .poll(async () => (await fake.control.clients())[0]!.settings)
      .toMatchObject({ order_progression: 'manual', investor_activity_per_hour: 0 });
    await page.getByRole('link', { name: 'Orders', exact: true }).first().click();
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Orders of sandbox-client');
    expect(await page.getByTestId('living').count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Next step' }).count()).toBe(0);

    const order = placeOrder();
    await page.goto(`${fake.url}/console/orders/${order.id}`);
    await expect.poll(() => page.getByTestId('order-status').textContent()).toBe('placed');
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(await page.getByTestId('order-status').textContent()).toBe('placed');

    await page.goto(`${fake.url}/console/tenant`);
    await page.getByLabel('Progression').selectOption('clock');
    await page.goto(`${fake.url}/console/orders/${order.id}`);
    await expect
      .poll(() => page.getByTestId('order-status').textContent(), { timeout: 8_000 })
      .toBe('awaiting payment');
    await watched.close();
  }, 40_000);
});
