import { describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

// What a request sent and got back (the Requests view), and an order's page: who acted, and its payment method
// details laid out as fields.
let fake: FakeServer;
let browser: Browser;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));

const send = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${fake.url}${path}`, { ...init, headers: { authorization: `Bearer ${await fake.token()}`, 'content-type': 'application/json', ...init.headers } });
  return response.headers.get('x-request-id')!;
};

describe('the Requests view', () => {
  it('opens a request on what it sent and what came back: a 422 with its field errors by field, the token request redacted, a long answer folded', async () => {
    fake.reset();
    const refused = await send('/v1/accounts', { method: 'POST', body: JSON.stringify({ type: 'individual', business_name: 'Acme', dob_month: 13 }) });
    const list = await send('/v1/orders?limit=1000');
    const [grant] = await fake.control.requests({ path: '/oauth2/token' });
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/requests?ids=${[grant!.id, refused, list].join(',')}`);

    const rows = page.locator('tr.details');
    await expect.poll(() => rows.count()).toBe(3);
    const ofRequest = (id: string) => page.locator('tr', { has: page.getByRole('button', { name: `Details of request ${id}` }) }).locator('xpath=following-sibling::tr[1]');

    // the 422: the body sent laid out, the problem's field errors one row per field
    const problem = ofRequest(refused);
    await expect.poll(() => problem.getByTestId('request-body-text').textContent()).toContain('"business_name": "Acme"');
    const errors = problem.getByTestId('field-errors');
    const answered = JSON.parse((await fake.control.request(refused)).response!.text!) as { errors: { path: string }[] };
    expect(answered.errors.length).toBeGreaterThan(0);
    expect((await errors.locator('tbody th').allTextContents()).sort()).toEqual(answered.errors.map((e) => e.path).sort());
    expect(await errors.locator('caption').textContent()).toMatch(/^Field errors of the answer \(\d+\)$/);

    // the token request: its secret and its token redacted, as in the exports
    const token = ofRequest(grant!.id);
    await expect.poll(() => token.getByTestId('request-body-text').textContent()).toContain('client_secret=%5Bredacted%5D');
    expect(await token.textContent()).not.toContain('sandbox-secret');
    expect(await token.getByTestId('answer-body-text').textContent()).toContain('"access_token": "[redacted]"');

    // a long answer: folded, cut at 8 KiB, opened on a click
    const long = ofRequest(list);
    await expect.poll(() => long.locator('details').count()).toBe(1);
    expect(await long.textContent()).toContain('cut at 8 KiB by the journal');
    expect(await long.getByTestId('answer-body-text').isVisible()).toBe(false);
    await long.locator('details summary').click();
    expect(await long.getByTestId('answer-body-text').isVisible()).toBe(true);
    expect(await long.getByText('No body.').count()).toBe(1);

    expect(await seriousViolations(page)).toEqual([]);
    watched.expectError(/422/);
    await watched.close();
  });
});

describe('an order’s page', () => {
  it('names who acted in its history and lays its payment method details out as fields', async () => {
    fake.reset();
    const order = fake.state().orders.find((o) => o.status === 'PLACED' && o.sender_payment_method_details !== null)!;
    fake.advanceOrderSync(order.id);
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/orders/${order.id}`);
    const history = page.getByTestId('status-history').locator('tbody tr');
    await expect.poll(() => history.allTextContents()).toEqual([expect.stringMatching(/^placed.*fixtures/), expect.stringMatching(/^awaiting payment.*control/)]);

    const sender = page.locator('[data-field="sender_payment_method_details"]');
    const names = await sender.locator('dl.nested dt').allTextContents();
    expect(names).toEqual(Object.keys(order.sender_payment_method_details!));
    for (const [name, value] of Object.entries(order.sender_payment_method_details!)) {
      expect(await sender.locator(`dl.nested [data-field="${name}"] dd`).textContent(), name).toBe(value === null ? '—' : String(value));
    }
    // no value of the page is raw JSON
    expect((await page.locator('dl.fields dd').allTextContents()).filter((text) => text.startsWith('{'))).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await watched.close();
  });
});
