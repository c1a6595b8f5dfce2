import { beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

let fake: FakeServer;
let browser: Browser;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));
beforeAll(async () => {
  // something for every table to show: requests, a readiness finding (the same 4xx three times), an active fault
  const token = await fake.token();
  for (let i = 0; i < 3; i++)
    await fetch(`${fake.url}/v1/accounts/nope`, { headers: { authorization: `Bearer ${token}` } });
  await fake.control.addFault({ method: 'DELETE', path: '/v1/orders/*/', status: 429, probability: 0.5 });
  expect((await fake.control.report()).findings.map((f) => f.code)).toContain('repeated_client_error');
});

/** Every view of the console, by its deep link, and what shows that it rendered the tenant's world. */
function views(): [string, string, RegExp][] {
  const world = fake.state();
  const account = world.accounts[0]!;
  const order = world.orders.find((o) => o.status === 'PLACED')!;
  return [
    ['overview', '/console/', /^Overview of sandbox-client$/],
    ['accounts', '/console/accounts', /^Accounts of sandbox-client$/],
    [
      'account detail',
      `/console/accounts/${account.id}`,
      new RegExp(`^${account.business_name ?? `${account.first_name} ${account.last_name}`}$`),
    ],
    ['orders', '/console/orders', /^Orders of sandbox-client$/],
    [
      'order detail',
      `/console/orders/${order.id}`,
      new RegExp(`^${order.side} ${order.amount_of_units} × ${order.isin}$`),
    ],
    ['place order', '/console/orders/new', /^New order$/],
    ['catalog', '/console/catalog', /^Catalog$/],
    ['requests', '/console/requests', /^Requests$/],
    ['faults', '/console/faults', /^Faults of sandbox-client$/],
    ['report', '/console/report', /^Readiness report of sandbox-client$/],
    ['connect', '/console/connect', /^Connect your client$/],
    ['tenant', '/console/tenant', /^Tenant$/],
  ];
}

describe('every view of the console', () => {
  // one test per view, each with the whole test timeout: twelve views with axe in one test outgrew it on a busy machine
  const names = [
    'overview',
    'accounts',
    'account detail',
    'orders',
    'order detail',
    'place order',
    'catalog',
    'requests',
    'faults',
    'report',
    'connect',
    'tenant',
  ];
  it('names every view below', () => {
    expect(views().map(([name]) => name)).toEqual(names);
  });

  it.each(names)(
    '%s renders from its deep link, with the clock, reset and snapshot controls, no console error, no request off the origin, and no serious or critical axe violation',
    async (name) => {
      const [, path, heading] = views().find(([n]) => n === name)!;
      const watched = await WatchedPage.open(browser, fake.url);
      const { page } = watched;
      await page.goto(fake.url + path);
      await expect
        .poll(() => page.getByRole('heading', { level: 1 }).textContent(), { message: name, timeout: 10_000 })
        .toMatch(heading);
      // the world has arrived (no view is still loading) and the header's controls are there
      await expect.poll(() => page.getByText('Loading…').count(), { message: name }).toBe(0);
      await expect
        .poll(() => page.locator('header time').textContent(), { message: name })
        .toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
      const header = page.locator('header');
      for (const control of ['+1 day', 'Set date', 'Reset', 'Download snapshot']) {
        expect(await header.getByRole('button', { name: control, exact: true }).count(), `${name}: ${control}`).toBe(1);
      }
      expect(await header.getByLabel('Upload snapshot').count(), name).toBe(1);
      expect(await page.getByRole('combobox', { name: 'Tenant' }).inputValue(), name).toBe('sandbox-client');
      expect(await seriousViolations(page)).toEqual([]);
      await watched.close();
    },
  );

  it('opens the readiness report at /console/readiness too, its address rewritten to the view’s own and the menu marking it', async () => {
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/readiness`);
    await page.getByRole('heading', { level: 1, name: 'Readiness report of sandbox-client' }).waitFor();
    expect(page.url()).toBe(`${fake.url}/console/report`);
    expect(
      await page
        .getByRole('navigation', { name: 'Views' })
        .getByRole('link', { name: 'Readiness', exact: true })
        .getAttribute('aria-current'),
    ).toBe('page');
    await watched.close();
  });

  it('moves between views without reloading: the navigation marks the current one', async () => {
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/`);
    await page.getByRole('heading', { name: 'Overview of sandbox-client' }).waitFor();
    const documents = watched.requests.filter((u) => u.endsWith('/console/') || /\/console\/[a-z]+$/.test(u)).length;
    for (const [label, heading] of [
      ['Orders', 'Orders of sandbox-client'],
      ['Catalog', 'Catalog'],
      ['Requests', 'Requests'],
      ['Overview', 'Overview of sandbox-client'],
    ] as const) {
      await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: label, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      expect(await page.getByRole('link', { name: label, exact: true }).getAttribute('aria-current')).toBe('page');
    }
    expect(watched.requests.filter((u) => u.endsWith('/console/') || /\/console\/[a-z]+$/.test(u)).length).toBe(
      documents,
    );
    // the browser's back button walks the same way back
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Catalog' }).waitFor();
    expect(page.url()).toBe(`${fake.url}/console/catalog`);
    await watched.close();
  });
});
