// The Fidelity view: shadow mode's agreement per operation and each difference side by side with its request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startServer, type FakeServer } from '../../src/index.js';
import { deviatingUpstream } from '../support/deviating-upstream.js';
import { launchBrowser, seriousViolations, WatchedPage } from './support.js';

let behind: FakeServer;
let proxy: Awaited<ReturnType<typeof deviatingUpstream>>;
let shadow: FakeServer;
let plain: FakeServer;
let browser: Browser;

beforeAll(async () => {
  behind = await startServer();
  // the real service, moved on: its accounts carry a field the fake does not know
  proxy = await deviatingUpstream(behind.url, ({ method, path }, answer) =>
    method === 'POST' && path === '/v1/accounts' && answer.status === 201 ? { status: 201, body: { ...(answer.body as object), nickname: 'ada' } } : undefined,
  );
  [shadow, plain, browser] = await Promise.all([startServer({ upstream: proxy.url }), startServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await shadow?.stop();
  await plain?.stop();
  await proxy?.close();
  await behind?.stop();
});

it('shows the agreement per operation and each difference with both values and its request', async () => {
  const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid offline', client_id: 'sandbox-client', client_secret: 'sandbox-secret', audience: new URL(shadow.url).host });
  const { access_token: token } = (await (await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: form })).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await fetch(`${shadow.url}/v1/accounts`, { method: 'POST', headers, body: JSON.stringify({ type: 'individual', first_name: 'Ada' }) });
  await fetch(`${shadow.url}/v1/assets?limit=2`, { headers });

  const watched = await WatchedPage.open(browser, shadow.url);
  const { page } = watched;
  await page.goto(`${shadow.url}/console/fidelity`);
  await page.getByRole('heading', { level: 1, name: 'Fidelity' }).waitFor();
  const row = page.locator('table tr', { hasText: 'createAccount' });
  await row.waitFor();
  expect(await row.locator('td').allTextContents()).toEqual(['createAccount', '1', '1', '0', '0 %', '0', '1']);
  expect(await page.locator('table tr', { hasText: 'listAssets' }).locator('td').nth(4).textContent()).toBe('100 %');
  const difference = page.locator('li.difference');
  expect(await difference.locator('h3').textContent()).toContain('missing_field');
  expect(await difference.locator('figure').first().locator('pre').textContent()).toBe('"ada"');
  expect(await difference.locator('figure').nth(1).locator('pre').textContent()).toBe('(none)');
  expect(await difference.getByText('POST /v1/accounts').count()).toBe(1);
  expect(await seriousViolations(page)).toEqual([]);
  await difference.getByRole('link', { name: '2', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  expect(page.url()).toBe(`${shadow.url}/console/requests?ids=2`);
  await watched.close();
});

it('says how to start shadow mode when the fake is not in it', async () => {
  const watched = await WatchedPage.open(browser, plain.url);
  // the console asks, and the fake answers 409 shadow_mode_off
  watched.expectError(/409 \(Conflict\).*\/__control\/fidelity/);
  await watched.page.goto(`${plain.url}/console/fidelity`);
  await watched.page.getByText(/The fake is not in shadow mode/).waitFor();
  await watched.close();
});
