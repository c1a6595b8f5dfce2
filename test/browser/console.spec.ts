import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { FakeServer, Schemas, World } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

let fake: FakeServer;
let browser: Browser;
let watched: WatchedPage;
let page: Page;
let fixtures: World;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));
beforeAll(async () => {
  fixtures = fake.state();
});
// every test starts from the fixtures in a fresh tab, and ends having sent nothing off the origin, logged no error
// and opened no dialog
beforeEach(async () => {
  fake.reset();
  // a reset keeps the journal, which the requests feed shows whole: each test starts from an empty one
  fake.clearRequests();
  watched = await WatchedPage.open(browser, fake.url);
  page = watched.page;
});
afterEach(() => watched.close());

/** A partner's call of the public API, with a token of the client (default: the default client). */
async function partner(path: string, init: RequestInit & { clientId?: string } = {}): Promise<Response> {
  const token = await fake.token(init.clientId);
  return fetch(fake.url + path, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });
}

const open = async (path: string, heading: string | RegExp) => {
  await page.goto(fake.url + path);
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
};
const notice = () => page.getByRole('status').textContent();
const nav = (label: string) =>
  page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: label, exact: true }).click();

describe('orders', () => {
  it('Advance moves a BUY one step at a time, and GET /v1/orders shows each status; at COMPLETED Advance and Cancel order are disabled', async () => {
    const order = fixtures.orders.find((o) => o.status === 'PLACED' && o.side === 'BUY')!;
    await open(`/console/orders/${order.id}`, `BUY ${order.amount_of_units} × ${order.isin}`);
    const status = page.getByTestId('order-status');
    const advance = page.getByRole('button', { name: 'Advance', exact: true });
    expect(await status.textContent()).toBe('placed');
    for (const [label, api] of [
      ['awaiting payment', 'AWAITING_PAYMENT'],
      ['awaiting token delivery', 'AWAITING_TOKEN_DELIVERY'],
      ['completed', 'COMPLETED'],
    ]) {
      await advance.click();
      await expect.poll(() => status.textContent()).toBe(label);
      expect(await page.locator('.lifecycle [aria-current="step"] > span').textContent()).toBe(label);
      const listed = (await (
        await partner(`/v1/orders?account_id=${order.account_id}&order_status=${api}`)
      ).json()) as { data: { id: string }[] };
      expect(listed.data.map((o) => o.id)).toContain(order.id);
    }
    expect(await advance.isDisabled()).toBe(true);
    expect(await page.getByRole('button', { name: 'Cancel order' }).isDisabled()).toBe(true);
    expect(fake.state().orders.find((o) => o.id === order.id)).toMatchObject({
      status: 'COMPLETED',
      settlement_transaction_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
  });

  it('when the fake refuses a step (the order moved on elsewhere), the console shows its problem and then the order as it is', async () => {
    const order = fixtures.orders.find((o) => o.status === 'PLACED')!;
    watched.expectError(/status of 409 .*\/__control\/orders\/[^/]+\/advance\)$/);
    let worldReads = 0;
    page.on('response', (r) => void (new URL(r.url()).pathname === '/__control/state' && worldReads++));
    await open(`/console/orders/${order.id}`, new RegExp(`^${order.side} `));
    // the page reads the world on load and on the live feed's first poll; later only when partners call, and none do
    await expect.poll(() => worldReads).toBeGreaterThanOrEqual(2);
    // the control plane is not journaled, so the open page does not see this
    fake.setOrderStatusSync(order.id, 'COMPLETED');
    await page.getByRole('button', { name: 'Advance', exact: true }).click();
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^409 .*order_not_advanceable/);
    expect(fake.state().orders.find((o) => o.id === order.id)!.status).toBe('COMPLETED');
    // and it reads the order again: the buttons follow the status the fake has
    await expect.poll(() => page.getByTestId('order-status').textContent()).toBe('completed');
    expect(await page.getByRole('button', { name: 'Advance', exact: true }).isDisabled()).toBe(true);
    expect(await problem.isVisible()).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('placing an order shows a broken market rule at the field it names, then a valid one opens the new order', async () => {
    const notSubscribeable = fixtures.assets.find((a) => !a.subscribeable)!;
    const subscribeable = fixtures.assets.find((a) => a.subscribeable)!;
    const minimum = fixtures.share_classes.find((s) => s.id === subscribeable.share_class_id)!.min_investment ?? 1;
    const account = fixtures.accounts.find(
      (a) =>
        fixtures.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
        fixtures.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
    )!;
    watched.expectError(/status of 422 .*\/__control\/orders\)$/);
    await open(`/console/orders/new?account=${account.id}`, 'New order');
    await page.getByLabel('Asset (ISIN)').selectOption(notSubscribeable.isin);
    await page.getByRole('button', { name: 'Place order' }).click();
    const isinError = page.locator('#err-isin');
    await expect.poll(() => isinError.textContent()).toMatch(/subscribeable/);
    expect(await page.getByRole('alert').textContent()).toContain('asset_not_subscribeable');
    expect(await page.getByLabel('Asset (ISIN)').getAttribute('aria-invalid')).toBe('true');
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByLabel('Asset (ISIN)').selectOption(subscribeable.isin);
    await page.getByLabel('Value (cents)').fill(String(minimum));
    await page.getByRole('button', { name: 'Place order' }).click();
    await page.getByRole('heading', { level: 1, name: `BUY 1 × ${subscribeable.isin}` }).waitFor();
    const placed = fake.state().orders.filter((o) => !fixtures.orders.some((f) => f.id === o.id));
    expect(placed).toEqual([
      expect.objectContaining({ account_id: account.id, isin: subscribeable.isin, status: 'PLACED', value: minimum }),
    ]);
    expect(page.url()).toBe(`${fake.url}/console/orders/${placed[0]!.id}`);
  });
});

describe('faults and the live requests feed', () => {
  it('a 503 fault added in the console fails the partner’s next call, which arrives in the open requests feed', async () => {
    await open('/console/faults', 'Faults of sandbox-client');
    await page.getByLabel('Method').selectOption('GET');
    await page.getByLabel('Path').fill('/v1/orders');
    expect(await page.getByLabel('Status code').inputValue()).toBe('503');
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(notice).toMatch(/^Fault \S+ added/);
    expect(await fake.control.faults()).toEqual([
      expect.objectContaining({ method: 'GET', path: '/v1/orders', status: 503, remaining: 1 }),
    ]);

    // the feed is open before the call is made: the entry arrives by itself
    await nav('Requests');
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    const failed = await partner('/v1/orders?limit=5');
    expect(failed.status).toBe(503);
    expect((await partner('/v1/orders?limit=5')).status).toBe(200);
    const row = page.locator('table.requests tbody tr', { hasText: '/v1/orders' }).filter({ hasText: '503' });
    await row.waitFor({ timeout: 5000 });
    expect(await row.textContent()).toContain('service_unavailable');
    // newest first: the call that recovered is above the one that failed (its row may arrive a moment after the 503's)
    const statuses = () =>
      page.locator('table.requests tbody tr', { hasText: '/v1/orders' }).locator('td:nth-child(6)').allTextContents();
    await expect.poll(statuses).toEqual(['200', '503']);
    await row.getByRole('button', { name: /^Details of request/ }).click();
    const details = page.locator('tr.details');
    expect(await details.textContent()).toContain('limit=5');
    expect(await details.textContent()).toMatch(/problem code\s*service_unavailable/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('a fault after the operation, added in the console, loses the answer of a create that is applied: the feed says so', async () => {
    await open('/console/faults', 'Faults of sandbox-client');
    await page.getByLabel('Method').selectOption('POST');
    await page.getByLabel('Path').fill('/v1/accounts');
    await page.getByLabel('Drop the connection').check();
    await page.getByLabel('After the operation (it is done, the answer is lost)').check();
    await page.getByRole('button', { name: 'Add fault' }).click();
    await expect.poll(notice).toMatch(/^Fault \S+ added/);
    expect(await fake.control.faults()).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after' }),
    ]);
    expect(await page.locator('table').last().textContent()).toContain('after the operation');

    await nav('Requests');
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await expect(
      partner('/v1/accounts', {
        method: 'POST',
        body: JSON.stringify({ type: 'individual', external_id: 'lost-in-console' }),
      }),
    ).rejects.toThrow();
    expect(fake.state().accounts.filter((a) => a.external_id === 'lost-in-console')).toHaveLength(1);
    const row = page
      .locator('table.requests tbody tr', { hasText: '/v1/accounts' })
      .filter({ hasText: 'write applied' });
    await row.waitFor({ timeout: 5000 });
    await row.getByRole('button', { name: /^Details of request/ }).click();
    expect(await page.locator('tr.details').textContent()).toMatch(/applied\s*yes, although the answer was lost/);
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('filters the feed by status class and path, in the address', async () => {
    await partner('/v1/accounts/nope');
    await partner('/v1/share-classes');
    await open('/console/requests?status=4xx', 'Requests');
    const rows = page.locator('table.requests tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('/v1/accounts/nope');
    await page.getByLabel('Status').selectOption('');
    await page.getByLabel('Path contains').fill('share');
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain('/v1/share-classes');
    expect(new URL(page.url()).search).toBe('?path=share');
  });
});

describe('the world controls', () => {
  it('Reset puts the tenant back to its fixtures: accounts, orders, faults and clock', async () => {
    const created = await partner('/v1/accounts', {
      method: 'POST',
      body: JSON.stringify({ type: 'individual', first_name: 'Temporary' }),
    });
    expect(created.status).toBe(201);
    fake.advanceOrderSync(fixtures.orders.find((o) => o.status === 'PLACED')!.id);
    await fake.control.addFault({ status: 500 });
    await fake.control.advanceClock(30 * 86_400);
    expect(fake.state()).not.toEqual(fixtures);

    await open('/console/', 'Overview of sandbox-client');
    const accounts = page.locator('.counts li', { hasText: 'Accounts' }).locator('.count');
    await expect.poll(() => accounts.textContent()).toBe(String(fixtures.accounts.length + 1));
    await page.locator('header').getByRole('button', { name: 'Reset', exact: true }).click();
    await expect.poll(notice).toBe('sandbox-client is back to its fixtures.');
    expect(fake.state()).toEqual(fixtures);
    expect(await fake.control.faults()).toEqual([]);
    expect(Math.abs(Date.parse((await fake.control.now()).now) - Date.now())).toBeLessThan(60_000);
    await expect.poll(() => accounts.textContent()).toBe(String(fixtures.accounts.length));
  });

  it('the clock moves by a preset and to a date set in the console', async () => {
    await open('/console/', 'Overview of sandbox-client');
    const before = Date.parse((await fake.control.now()).now);
    await page.getByRole('button', { name: '+1 day' }).click();
    await expect.poll(notice).toBe('Clock of sandbox-client moved.');
    const moved = Date.parse((await fake.control.now()).now) - before;
    expect(moved).toBeGreaterThanOrEqual(86_400_000);
    expect(moved).toBeLessThan(86_400_000 + 60_000);
    await page.getByLabel('Set (UTC)').fill('2031-02-03T04:05');
    await page.getByRole('button', { name: 'Set date' }).click();
    await expect.poll(() => page.locator('header time').textContent()).toMatch(/^2031-02-03 04:0[5-6]:\d\d UTC$/);
    expect((await fake.control.now()).now).toMatch(/^2031-02-03T04:0[5-6]/);
  });

  it('downloads the world as a snapshot, and loads an uploaded one (a file that is not JSON is refused, and said so)', async () => {
    await open('/console/', 'Overview of sandbox-client');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download snapshot' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('sandbox-client-snapshot.json');
    const snapshot = JSON.parse(readFileSync((await download.path())!, 'utf8')) as World;
    expect(snapshot).toEqual(fixtures);

    const edited: World = {
      ...snapshot,
      accounts: snapshot.accounts.map((a, i) => (i === 0 ? { ...a, external_id: 'from-the-upload' } : a)),
    };
    const upload = page.locator('header input[type="file"]');
    await upload.setInputFiles({
      name: 'edited.json',
      mimeType: 'application/json',
      buffer: Buffer.from(JSON.stringify(edited)),
    });
    await expect.poll(notice).toBe('Snapshot edited.json loaded into sandbox-client.');
    expect(fake.state().accounts[0]!.external_id).toBe('from-the-upload');

    await upload.setInputFiles({
      name: 'broken.json',
      mimeType: 'application/json',
      buffer: Buffer.from('{ not json'),
    });
    await expect.poll(() => page.locator('header [role="alert"]').textContent()).toBe('broken.json is not JSON.');
    expect(fake.state().accounts[0]!.external_id).toBe('from-the-upload');
  });
});

describe('what partners send is shown as text', () => {
  it('an account named <img src=x onerror=alert(1)> shows literally, in the list and on its page, and runs nothing', async () => {
    const name = '<img src=x onerror=alert(1)>';
    const created = await partner('/v1/accounts', {
      method: 'POST',
      body: JSON.stringify({ type: 'individual', first_name: name }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    await open('/console/accounts', 'Accounts of sandbox-client');
    const link = page.getByRole('link', { name, exact: true });
    await link.waitFor();
    await link.click();
    await page.getByRole('heading', { level: 1, name, exact: true }).waitFor();
    expect(page.url()).toBe(`${fake.url}/console/accounts/${id}`);
    expect(await page.locator('img').count()).toBe(0);
    await page.waitForTimeout(300); // an injected onerror would fire by now
    expect(watched.requests.filter((url) => new URL(url).pathname.endsWith('/x'))).toEqual([]);
    // watched.close() then checks that no dialog opened
  });
});

describe('tenants', () => {
  it('the picker lists the control plane’s clients; a picked one is every view’s tenant, and Connect shows its secret in commands that work', async () => {
    await fake.control.addClient({ client_id: 'acme-demo', client_secret: "s3cret+&%2B with 'quotes'" });
    await open('/console/', 'Overview of sandbox-client');
    const picker = page.getByRole('combobox', { name: 'Tenant' });
    const listed = ((await (await fetch(`${fake.url}/__control/clients`)).json()) as Schemas['ClientList']).data;
    expect(listed.map((c) => c.client_id)).toContain('acme-demo');
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual(listed.map((c) => (c.default ? `${c.client_id} (default)` : c.client_id)));
    await picker.selectOption('acme-demo');
    await page.getByRole('heading', { level: 1, name: 'Overview of acme-demo' }).waitFor();
    await nav('Connect');
    await page.getByRole('heading', { level: 1, name: 'Connect your client' }).waitFor();
    expect(await page.locator('dt:text-is("Client secret") + dd').textContent()).toBe("s3cret+&%2B with 'quotes'");
    const run = async (label: string) => {
      const command = (await page.locator('figure', { hasText: label }).locator('pre').textContent())!;
      return (await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8', timeout: 10_000 })).stdout;
    };
    expect(JSON.parse(await run('Get a token'))).toMatchObject({
      access_token: expect.any(String),
      token_type: 'Bearer',
    });
    const accounts = JSON.parse(await run('A first call')) as { data: { id: string }[] };
    expect(accounts.data.map((a) => a.id)).toEqual(fixtures.accounts.map((a) => a.id));
    // the call was acme-demo's: it shows in its feed
    await nav('Requests');
    await page
      .locator('table.requests tbody tr', { hasText: '/v1/accounts' })
      .filter({ hasText: 'acme-demo' })
      .waitFor();
    await fake.control.forClient('acme-demo').reset();
  });

  it('Connect gives a client_secret_basic client a token command with HTTP Basic that works', async () => {
    await fake.control.addClient({
      client_id: 'basic-demo',
      client_secret: "b4s1c+&%2B:with 'quotes'",
      token_endpoint_auth_method: 'client_secret_basic',
    });
    await open('/console/', 'Overview of sandbox-client');
    await page.getByRole('combobox', { name: 'Tenant' }).selectOption('basic-demo');
    await page.getByRole('heading', { level: 1, name: 'Overview of basic-demo' }).waitFor();
    await nav('Connect');
    await page.getByRole('heading', { level: 1, name: 'Connect your client' }).waitFor();
    const command = (await page.locator('figure', { hasText: 'Get a token' }).locator('pre').textContent())!;
    expect(command).toContain(' -u ');
    expect(command).not.toContain('client_secret=');
    const { stdout } = await promisify(execFile)('sh', ['-c', command], { encoding: 'utf8', timeout: 10_000 });
    expect(JSON.parse(stdout)).toMatchObject({ access_token: expect.any(String), token_type: 'Bearer' });
  });

  it('creates a client in the Tenant view, which becomes the picked tenant with a world of its own', async () => {
    await open('/console/tenant', 'Tenant');
    await page.getByLabel('Client id').fill('made-in-console');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('heading', { name: 'Settings of made-in-console' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Tenant' }).inputValue()).toBe('made-in-console');
    await page.getByRole('checkbox', { name: /LEI required/ }).check();
    await expect.poll(notice).toBe('made-in-console changed.');
    const clients = (await (await fetch(`${fake.url}/__control/clients`)).json()) as Schemas['ClientList'];
    expect(clients.data.find((c) => c.client_id === 'made-in-console')).toMatchObject({
      default: false,
      settings: { lei_required: true, tax_reporting: false },
    });
  });

  it('creates a client_secret_basic client, and switches its token endpoint auth method back to client_secret_post', async () => {
    await open('/console/tenant', 'Tenant');
    await page.getByLabel('Client id').fill('basic-in-console');
    await page.getByLabel('Token endpoint auth method').selectOption('client_secret_basic');
    await page.getByRole('button', { name: 'Create client' }).click();
    await page.getByRole('heading', { name: 'Settings of basic-in-console' }).waitFor();
    const methodOf = async () =>
      ((await (await fetch(`${fake.url}/__control/clients`)).json()) as Schemas['ClientList']).data.find(
        (c) => c.client_id === 'basic-in-console',
      )?.token_endpoint_auth_method;
    expect(await methodOf()).toBe('client_secret_basic');
    expect(await page.getByRole('radio', { name: /^client_secret_basic/ }).isChecked()).toBe(true);
    await page.getByRole('radio', { name: /^client_secret_post/ }).check();
    await expect.poll(notice).toBe('basic-in-console changed.');
    expect(await methodOf()).toBe('client_secret_post');
  });
});

describe('the catalog', () => {
  it('a document’s title downloads its PDF through a signed link', async () => {
    await open('/console/catalog', 'Catalog');
    const document = fixtures.documents[0]!;
    const link = page.getByRole('link', { name: document.title, exact: true }).first();
    await link.waitFor();
    expect(await link.getAttribute('href')).toMatch(
      new RegExp(`^${fake.url}/files/sandbox-client/${document.id}\\.pdf\\?expires=\\d+&signature=[0-9a-f]{64}$`),
    );
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    expect(download.suggestedFilename()).toBe(`${document.id}.pdf`);
    const bytes = readFileSync((await download.path())!);
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    expect(bytes.toString('latin1')).toContain(document.title);
    // the download manager's request is not the page's to observe: the same link fetched by the page
    const answer = await page.evaluate(
      async (url) => {
        const response = await fetch(url);
        return { status: response.status, type: response.headers.get('content-type') };
      },
      (await link.getAttribute('href'))!,
    );
    expect(answer).toEqual({ status: 200, type: 'application/pdf' });
  });
});
