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
  const response = await fetch(`${fake.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${await fake.token()}`, 'content-type': 'application/json', ...init.headers },
  });
  return response.headers.get('x-request-id')!;
};

describe('the Requests view', () => {
  it('opens a request on what it sent and what came back: a 422 with its field errors by field, the token request redacted, a long answer folded', async () => {
    fake.reset();
    const refused = await send('/v1/accounts', {
      method: 'POST',
      body: JSON.stringify({ type: 'individual', business_name: 'Acme', dob_month: 13 }),
    });
    const list = await send('/v1/orders?limit=1000');
    const [grant] = await fake.control.requests({ path: '/oauth2/token' });
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/requests?ids=${[grant!.id, refused, list].join(',')}`);

    const rows = page.locator('tr.details');
    await expect.poll(() => rows.count()).toBe(3);
    const ofRequest = (id: string) =>
      page
        .locator('tr', { has: page.getByRole('button', { name: `Details of request ${id}` }) })
        .locator('xpath=following-sibling::tr[1]');

    // the 422: the body sent laid out, the problem's field errors one row per field
    const problem = ofRequest(refused);
    await expect
      .poll(() => problem.getByTestId('request-body-text').textContent())
      .toContain('"business_name": "Acme"');
    const errors = problem.getByTestId('field-errors');
    const answered = JSON.parse((await fake.control.request(refused)).response!.text!) as {
      errors: { path: string }[];
    };
    expect(answered.errors.length).toBeGreaterThan(0);
    expect((await errors.locator('tbody th').allTextContents()).sort()).toEqual(
      answered.errors.map((e) => e.path).sort(),
    );
    expect(await errors.locator('caption').textContent()).toMatch(/^Field errors of the answer \(\d+\)$/);

    // the token request: its secret and its token redacted, as in the exports
    const token = ofRequest(grant!.id);
    await expect
      .poll(() => token.getByTestId('request-body-text').textContent())
      .toContain('client_secret=%5Bredacted%5D');
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

describe('a row of the Requests view', () => {
  it('opens on a click anywhere in it and from the keyboard, without moving the columns; its path, query included, stays on one line', async () => {
    fake.reset();
    const method = fake.state().payment_method_details[0]!;
    const long = await send(`/v1/accounts/${method.account_id}/payment-method-details/${method.id}`);
    const listed = await send('/v1/orders?limit=5&status=PLACED');
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/requests`);
    const button = (id: string) => page.getByRole('button', { name: `Details of request ${id}` });
    const row = (id: string) => page.locator('tr', { has: button(id) });
    await row(long).waitFor();

    // the path column shows the query string, the whole of it in the cell's title too
    const listedPath = row(listed).locator('td.path');
    expect(await listedPath.textContent()).toBe('/v1/orders?limit=5&status=PLACED');
    expect(await listedPath.getAttribute('title')).toBe('/v1/orders?limit=5&status=PLACED');
    // a long path: one line, cut with an ellipsis rather than broken mid-word
    const longPath = row(long).locator('td.path');
    expect(await longPath.getAttribute('title')).toBe(
      `/v1/accounts/${method.account_id}/payment-method-details/${method.id}`,
    );
    // in the page (this file is compiled without the DOM's types): the lines its text takes, whether it is cut
    type Cell = {
      scrollWidth: number;
      clientWidth: number;
      ownerDocument: {
        createRange(): { selectNodeContents(node: unknown): void; getClientRects(): Iterable<{ top: number }> };
        defaultView: { getComputedStyle(node: unknown): { textOverflow: string } };
      };
    };
    const layout = await longPath.evaluate((node) => {
      const cell = node as unknown as Cell;
      const range = cell.ownerDocument.createRange();
      range.selectNodeContents(cell);
      const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      return {
        lines: lines.size,
        cut: cell.scrollWidth > cell.clientWidth,
        overflow: cell.ownerDocument.defaultView.getComputedStyle(cell).textOverflow,
      };
    });
    expect(layout).toEqual({ lines: 1, cut: true, overflow: 'ellipsis' });

    // a click on the path (not on the small button) opens the row; the columns stay where they were
    const columns = async () =>
      Promise.all(
        (await page.locator('table.requests thead th').all()).map(async (th) => (await th.boundingBox())!.width),
      );
    const before = await columns();
    await longPath.click();
    await expect.poll(() => button(long).getAttribute('aria-expanded')).toBe('true');
    await row(long).locator('xpath=following-sibling::tr[1]').getByTestId('answer-body-text').waitFor();
    expect(await columns()).toEqual(before);
    await row(long).locator('td').nth(5).click();
    await expect.poll(() => button(long).getAttribute('aria-expanded')).toBe('false');

    // from the keyboard: Enter and Space on the row's button
    await button(listed).focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => button(listed).getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Space');
    await expect.poll(() => button(listed).getAttribute('aria-expanded')).toBe('false');
    expect(await page.locator('tr.details').count()).toBe(0);

    expect(await seriousViolations(page)).toEqual([]);
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
    await expect
      .poll(() => history.allTextContents())
      .toEqual([expect.stringMatching(/^placed.*fixtures/), expect.stringMatching(/^awaiting payment.*control/)]);

    const sender = page.locator('[data-field="sender_payment_method_details"]');
    const names = await sender.locator('dl.nested dt').allTextContents();
    expect(names).toEqual(Object.keys(order.sender_payment_method_details!));
    for (const [name, value] of Object.entries(order.sender_payment_method_details!)) {
      expect(await sender.locator(`dl.nested [data-field="${name}"] dd`).textContent(), name).toBe(
        value === null ? '—' : String(value),
      );
    }
    // no value of the page is raw JSON
    expect((await page.locator('dl.fields dd').allTextContents()).filter((text) => text.startsWith('{'))).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await watched.close();
  });
});
