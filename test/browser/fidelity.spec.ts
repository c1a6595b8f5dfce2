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
  proxy = await deviatingUpstream(behind.url, ({ method, path, body }, answer) => {
    if (method !== 'POST' || path !== '/v1/accounts' || answer.status !== 201) return undefined;
    // a rule the fake does not know: the real service refuses this account, where the fake creates it
    if (body.includes('"Refused"'))
      return {
        status: 422,
        body: {
          type: 'about:blank',
          title: 'Unprocessable Entity',
          status: 422,
          code: 'invalid_request',
          detail: 'first_name "Refused" is not allowed here',
        },
      };
    return { status: 201, body: { ...(answer.body as object), nickname: 'ada' } };
  });
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
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id: 'sandbox-client',
    client_secret: 'sandbox-secret',
    audience: new URL(shadow.url).host,
  });
  const { access_token: token } = (await (
    await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: form })
  ).json()) as { access_token: string };
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  await fetch(`${shadow.url}/v1/accounts`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ type: 'individual', first_name: 'Ada' }),
  });
  await fetch(`${shadow.url}/v1/assets?limit=2`, { headers });

  const watched = await WatchedPage.open(browser, shadow.url);
  const { page } = watched;
  await page.goto(`${shadow.url}/console/fidelity`);
  await page.getByRole('heading', { level: 1, name: 'Fidelity' }).waitFor();
  const row = page.locator('table tr', { hasText: 'createAccount' });
  await row.waitFor();
  expect(await row.locator('td').allTextContents()).toEqual(['createAccount', '1', '1', '0', '0 %', '0', '1']);
  expect(await page.locator('table tr', { hasText: 'listAssets' }).locator('td').nth(4).textContent()).toBe('100 %');
  const difference = page.locator('li.difference', { hasText: '/nickname' });
  expect(await difference.locator('h3').textContent()).toBe(
    'Field /nickname is in the upstream\'s answer ("ada") but not in the fake\'s',
  );
  expect(await difference.locator('figure').first().locator('pre').textContent()).toBe('"ada"');
  expect(await difference.locator('figure').nth(1).locator('pre').textContent()).toBe('(none)');
  expect(await difference.getByText('POST /v1/accounts').count()).toBe(1);
  expect(await seriousViolations(page)).toEqual([]);
  await difference.getByRole('link', { name: '2', exact: true }).click();
  await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
  expect(page.url()).toBe(`${shadow.url}/console/requests?ids=2`);
  await watched.close();
});

it("heads every card with a sentence, and shows both sides' problem code and detail on a status difference", async () => {
  const form = new URLSearchParams({
    grant_type: 'client_credentials',
    scope: 'openid offline',
    client_id: 'sandbox-client',
    client_secret: 'sandbox-secret',
    audience: new URL(shadow.url).host,
  });
  const { access_token: token } = (await (
    await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: form })
  ).json()) as { access_token: string };
  const refused = await fetch(`${shadow.url}/v1/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'individual', first_name: 'Refused' }),
  });
  expect(refused.status).toBe(422);

  const watched = await WatchedPage.open(browser, shadow.url);
  const { page } = watched;
  await page.goto(`${shadow.url}/console/fidelity`);
  const card = page.locator('li.difference', { hasText: 'The upstream answered 422' });
  await card.waitFor();
  expect(await card.locator('h3').textContent()).toBe(
    'The upstream answered 422 (invalid_request) where the fake answered 201',
  );
  // every card's heading is a sentence, none the old "status another status at (the status)"
  for (const heading of await page.locator('li.difference h3').allTextContents())
    expect(heading).toMatch(/^(The upstream answered|Both answered|Field) (?!.*another).+ (the )?fake/);
  const [upstreamSide, fakeSide] = [card.locator('figure').first(), card.locator('figure').nth(1)];
  expect(await upstreamSide.locator('pre').textContent()).toBe('422');
  expect(await upstreamSide.locator('dl').textContent()).toBe(
    'Codeinvalid_requestDetailfirst_name "Refused" is not allowed here',
  );
  expect(await fakeSide.locator('pre').textContent()).toBe('201');
  expect(await fakeSide.getByText('No problem: it succeeded.').count()).toBe(1);
  // side by side: the two figures start on the same line
  const [a, b] = [await upstreamSide.boundingBox(), await fakeSide.boundingBox()];
  expect(a!.y).toBe(b!.y);
  expect(a!.x).toBeLessThan(b!.x);
  expect(await seriousViolations(page)).toEqual([]);
  await watched.close();
});

it('says calmly how to turn shadow mode on when it is off, without asking for the report (no 409 in the browser)', async () => {
  const watched = await WatchedPage.open(browser, plain.url);
  const answers: string[] = [];
  watched.page.on(
    'response',
    (response) => void answers.push(`${response.status()} ${new URL(response.url()).pathname}`),
  );
  await watched.page.goto(`${plain.url}/console/fidelity`);
  await watched.page.getByText(/Shadow mode is off/).waitFor();
  expect(await watched.page.locator('pre', { hasText: '--upstream' }).count()).toBe(1);
  expect(await seriousViolations(watched.page)).toEqual([]);
  expect(answers).toContain('200 /__control/health');
  expect(answers.filter((a) => a.includes('/__control/fidelity'))).toEqual([]);
  expect(answers.filter((a) => /^[45]/.test(a))).toEqual([]);
  // close() asserts no console error at all: none is expected here
  await watched.close();
});
