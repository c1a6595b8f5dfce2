import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, WatchedPage } from './support.js';

let fake: FakeServer;
let browser: Browser;
let watched: WatchedPage;
let page: Page;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));
beforeEach(async () => {
  watched = await WatchedPage.open(browser, fake.url);
  page = watched.page;
});
afterEach(() => watched.close());

describe('/docs (Swagger UI)', () => {
  it('Authorize with the client’s credentials and "select all" scopes, then Try it out on a /v1 operation answers 200', async () => {
    await page.goto(`${fake.url}/docs`);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const dialog = page.locator('.modal-ux');
    await dialog.waitFor();
    const oauth = dialog.locator('.auth-container', { hasText: 'oauth2 (OAuth2, clientCredentials)' });
    // the default client's id is filled in already (initOAuth); its secret is the user's to type
    expect(await oauth.getByLabel('client_id:').inputValue()).toBe('sandbox-client');
    await oauth.getByLabel('client_secret:').fill('sandbox-secret');
    // the public API's flow lists the real service's scopes only: all of them are the sandbox client's
    await oauth.getByText('select all', { exact: true }).click();
    const scopes = oauth.locator('.scopes input[type=checkbox]');
    expect(
      await scopes.evaluateAll((boxes) => boxes.map((box) => (box as unknown as { checked: boolean }).checked)),
    ).toEqual(Array(6).fill(true));
    const token = page.waitForResponse((r) => new URL(r.url()).pathname === '/oauth2/token');
    await oauth.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
    expect((await token).status()).toBe(200);
    expect(new URLSearchParams((await token).request().postData() ?? '').get('scope')?.split(' ').sort()).toEqual([
      'offline',
      'openid',
      'read:accounts',
      'read:assets',
      'read:documents',
      'read:orders',
      'write:accounts',
      'write:orders',
    ]);
    await oauth.locator('button', { hasText: 'Logout' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).first().click();

    const operation = page.locator('#operations-share-classes-listShareClasses');
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    const answer = page.waitForResponse((r) => new URL(r.url()).pathname === '/v1/share-classes');
    await operation.getByRole('button', { name: 'Execute' }).click();
    const response = await answer;
    expect(response.status()).toBe(200);
    expect(((await response.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
    expect(await response.request().headerValue('authorization')).toMatch(/^Bearer ey/);
    await expect
      .poll(() => operation.locator('.live-responses-table tbody .response-col_status').first().textContent())
      .toBe('200');
  });

  it("shows each documented answer's example by its summary, and the request's examples by name (docs/contract-testing.md)", async () => {
    await page.goto(`${fake.url}/docs`);
    const operation = page.locator('#operations-accounts-getAccount');
    await operation.locator('.opblock-summary').click();
    const notFound = operation.locator('tr.response[data-code="404"]');
    await notFound.waitFor();
    expect(await notFound.locator('select').last().textContent()).toBe('No account has this id');
    expect(
      JSON.parse((await notFound.locator('.example.microlight, .microlight').first().textContent())!),
    ).toMatchObject({ status: 404, code: 'not_found' });
    const names = await operation.locator('.parameters select').first().locator('option').allTextContents();
    // the document's own exchanges; those that need more than a token (401, 403, 429) are example files beside it
    expect(names).toEqual(['getAccount_200', 'getAccount_404', 'getAccount_422']);
  });
});
