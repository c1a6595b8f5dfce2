import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createControlClient, type FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

const CONTROL_TOKEN = 'ctl-7f3a9b';

let fake: FakeServer;
let browser: Browser;
let watched: WatchedPage;
let page: Page;

fakeAndBrowserPerFile({ controlToken: CONTROL_TOKEN }, (opened) => ({ fake, browser } = opened));
beforeEach(async () => {
  watched = await WatchedPage.open(browser, fake.url);
  page = watched.page;
  // the guard's refusals are what these tests provoke: Chromium logs each as a console error
  watched.expectError(/status of 401 \(Unauthorized\) \(http:\/\/127\.0\.0\.1:\d+\/__control\//);
});
afterEach(() => watched.close());

const prompt = () => page.getByRole('heading', { level: 1, name: 'Control token' });
const submit = async (token: string) => {
  await page.getByLabel('CONTROL_TOKEN').fill(token);
  await page.getByRole('button', { name: 'Use this token' }).click();
};

describe('the console behind CONTROL_TOKEN', () => {
  it('asks for the token, says plainly when it is wrong, and works with the right one', async () => {
    await page.goto(`${fake.url}/console/orders`);
    await prompt().waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    expect(await seriousViolations(page)).toEqual([]);

    await submit('not-the-token');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/That token is wrong: the fake answered 401 invalid_control_token/);
    expect(await seriousViolations(page)).toEqual([]);

    await submit(CONTROL_TOKEN);
    await page.getByRole('heading', { level: 1, name: 'Orders of sandbox-client' }).waitFor();
    await page.locator('table tbody tr').first().waitFor();
    // every control call it made after that carried the token
    const refused = watched.errors.length;
    await page.getByRole('navigation', { name: 'Views' }).getByRole('link', { name: 'Requests', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Requests' }).waitFor();
    await page.waitForTimeout(1500); // a poll or two of the live feed
    expect(watched.errors.length).toBe(refused);
  });

  it('asks once per browser tab: a reload and a deep link keep the token, a new tab asks again', async () => {
    await page.goto(`${fake.url}/console/`);
    await prompt().waitFor();
    await submit(CONTROL_TOKEN);
    await page.getByRole('heading', { level: 1, name: 'Overview of sandbox-client' }).waitFor();

    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Overview of sandbox-client' }).waitFor();
    await page.goto(`${fake.url}/console/faults`);
    await page.getByRole('heading', { level: 1, name: 'Faults of sandbox-client' }).waitFor();
    expect(await prompt().count()).toBe(0);

    const other = await WatchedPage.open(browser, fake.url);
    other.expectError(/status of 401 \(Unauthorized\)/);
    await other.page.goto(`${fake.url}/console/faults`);
    await other.page.getByRole('heading', { level: 1, name: 'Control token' }).waitFor();
    await other.close();
  });

  it('signs a partner in with its client credentials (scope control): its own tenant only, never another', async () => {
    const operator = createControlClient({ url: fake.url, controlToken: CONTROL_TOKEN });
    await operator.addClient({
      client_id: 'acme',
      client_secret: 'acme-secret',
      scopes: ['read:accounts', 'read:orders', 'control'],
    });
    await page.goto(`${fake.url}/console/`);
    await prompt().waitFor();
    await page.getByLabel('client_id').fill('acme');
    await page.getByLabel('client_secret').fill('acme-secret');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview of acme' }).waitFor();
    // the picker lists acme alone: no other tenant, no other secret anywhere on the page
    await page.waitForTimeout(1200);
    const html = await page.content();
    expect(html).not.toContain('sandbox-secret');
    expect(html).not.toMatch(/Overview of sandbox-client/);
    expect(await seriousViolations(page)).toEqual([]);
    // what the console would send for another tenant is refused by the fake, whatever the page does
    watched.expectError(/status of 403 \(Forbidden\) \(http:\/\/127\.0\.0\.1:\d+\/__control\/state\)/);
    const crossing = await page.evaluate(async () => {
      const stored = JSON.parse(
        (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem(
          'investment-api-fake.console',
        ) ?? '{}',
      ) as { controlToken?: string };
      const response = await fetch('/__control/state', {
        headers: { authorization: `Bearer ${stored.controlToken}`, 'x-client-id': 'sandbox-client' },
      });
      return { status: response.status, code: ((await response.json()) as { code: string }).code };
    });
    expect(crossing).toEqual({ status: 403, code: 'forbidden_tenant' });
  });

  it('signs in a partner whose client is registered for client_secret_basic once that method is picked, and says so when it is not', async () => {
    const operator = createControlClient({ url: fake.url, controlToken: CONTROL_TOKEN });
    await operator.addClient({
      client_id: 'basic-co',
      client_secret: 'p+ss w:rd é',
      scopes: ['read:accounts', 'control'],
      token_endpoint_auth_method: 'client_secret_basic',
    });
    await page.goto(`${fake.url}/console/`);
    await prompt().waitFor();
    await page.getByLabel('client_id').fill('basic-co');
    await page.getByLabel('client_secret').fill('p+ss w:rd é');
    watched.expectError(/status of 401 \(Unauthorized\) \(http:\/\/127\.0\.0\.1:\d+\/oauth2\/token\)/);
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(
      /invalid_client: .*registered for client_secret_basic .* used client_secret_post/,
    );
    await page.getByLabel('token_endpoint_auth_method').selectOption('client_secret_basic');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview of basic-co' }).waitFor();
  });
});
