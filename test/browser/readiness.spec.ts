// The Readiness view (severities, hints, links to the requests, "no requests yet") and the Requests view's exports.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

let fake: FakeServer;
let browser: Browser;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));

it('says "no requests yet" over a client that has sent nothing, instead of a pass', async () => {
  const watched = await WatchedPage.open(browser, fake.url);
  await watched.page.goto(`${fake.url}/console/report`);
  await watched.page.getByText(/^No requests yet/).waitFor();
  expect(await watched.page.getByText(/nothing this client did would hurt/).count()).toBe(0);
  await watched.close();
});

it('shows each finding with its severity, its hint and links to the requests behind it', async () => {
  const token = await (
    await fetch(`${fake.url}/oauth2/token`, {
      method: 'POST',
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline read:orders write:orders read:documents',
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        audience: new URL(fake.url).host,
      }),
    }).then((r) => r.json() as Promise<{ access_token: string }>)
  ).access_token;
  const order = fake.state().orders.find((o) => o.status === 'PLACED')!;
  for (let i = 0; i < 3; i++)
    await fetch(`${fake.url}/v1/orders/${order.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${token}` },
    });
  await fetch(`${fake.url}/v1/orders?order_status=PLACED`, { headers: { authorization: `Bearer ${token}` } });
  const wrongPath = fake.report().findings.find((f) => f.code === 'wrong_path')!;

  const watched = await WatchedPage.open(browser, fake.url);
  const { page } = watched;
  await page.goto(`${fake.url}/console/report`);
  const error = page.locator('li.finding', { hasText: 'wrong_path' });
  await error.waitFor();
  expect(await error.locator('.severity').textContent()).toBe('error');
  expect(await error.locator('.hint').textContent()).toContain('Send DELETE /v1/orders/{order_id}/');
  expect(await error.getByRole('link', { name: 'about this rule' }).getAttribute('href')).toMatch(
    /docs\/readiness\.md#wrong_path$/,
  );
  const warning = page.locator('li.finding', { hasText: 'unused_scopes' });
  expect(await warning.locator('.severity').textContent()).toBe('warning');
  expect(await warning.locator('.hint').textContent()).toContain('without read:documents write:orders');
  expect(await page.getByText(/^2 finding\(s\) in 5 request\(s\): 1 error\(s\), 1 warning\(s\)\.$/).count()).toBe(1);
  expect(await seriousViolations(page)).toEqual([]);

  // a request id leads to the Requests view, that request opened
  await error.getByRole('link', { name: wrongPath.requests[1]!, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  expect(page.url()).toBe(`${fake.url}/console/requests?ids=${wrongPath.requests[1]}`);
  await expect.poll(() => page.locator('table.requests tbody tr.details').count()).toBe(1);
  expect(await page.getByText('1 request(s) shown').count()).toBe(1);
  await watched.close();
});

it('exports the session from the Requests view as HAR, a .http file and a vitest test, credentials redacted', async () => {
  const token = await fake.token();
  await fetch(`${fake.url}/v1/assets`, { headers: { authorization: `Bearer ${token}` } });
  const watched = await WatchedPage.open(browser, fake.url);
  const { page } = watched;
  await page.goto(`${fake.url}/console/requests`);
  const saved = async (button: string) => {
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: button }).click(),
    ]);
    return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
  };
  const har = await saved('HAR (dev tools, HAR viewers)');
  expect(har.name).toBe('sandbox-client-requests.har');
  const log = JSON.parse(har.text).log;
  expect(log.version).toBe('1.2');
  expect(log.entries.at(-1).request.url).toBe(`${fake.url}/v1/assets`);
  const http = await saved('.http (VS Code, JetBrains)');
  expect(http.name).toBe('sandbox-client-requests.http');
  expect(http.text).toContain(`###`);
  expect(http.text).toContain('GET {{base}}/v1/assets\nAuthorization: Bearer {{token}}');
  const replay = await saved('export as vitest test');
  expect(replay.name).toBe('sandbox-client-requests.test.ts');
  expect(replay.text).toContain("import { startServer, type FakeServer } from 'investment-api-fake';");
  expect(replay.text).toMatch(/^ {2}it\("\d+\. GET \/v1\/assets → 200"/m);
  for (const text of [har.text, http.text, replay.text]) {
    expect(text).not.toContain(token);
    expect(text).not.toContain('sandbox-secret');
  }
  await watched.close();
});
