import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { FakeServer } from '../../src/index.js';
import { fakeAndBrowserPerFile, seriousViolations, WatchedPage } from './support.js';

// Four edges of the console a new partner met: the Requests view's Code column and an opened request's `applied`,
// the clock's date field, and the Fidelity view's sample command.
let fake: FakeServer;
let browser: Browser;
let watched: WatchedPage;
let page: Page;

fakeAndBrowserPerFile({}, (opened) => ({ fake, browser } = opened));
beforeEach(async () => {
  fake.reset();
  fake.clearRequests();
  watched = await WatchedPage.open(browser, fake.url);
  page = watched.page;
});
afterEach(() => watched.close());

/** A partner's call with the default client's token: its request id. */
async function partner(path: string, init: RequestInit = {}): Promise<string> {
  const response = await fetch(fake.url + path, {
    ...init,
    headers: { authorization: `Bearer ${await fake.token()}`, 'content-type': 'application/json' },
  });
  return response.headers.get('x-request-id')!;
}

/** A refused cancel: 409 order_not_cancellable, the longest code a partner meets often. */
const refusedCancel = () =>
  partner(`/v1/orders/${fake.state().orders.find((o) => o.status === 'COMPLETED')!.id}/`, { method: 'DELETE' });

// (this file is compiled without the DOM's types) what the page lays out of an element
type Laid = {
  scrollWidth: number;
  clientWidth: number;
  textContent: string;
  closest(selector: string): { getAttribute(name: string): string | null } | null;
  ownerDocument: { defaultView: { getComputedStyle(node: unknown): { textOverflow: string; whiteSpace: string } } };
};

describe('the Requests view', () => {
  it('shows a code its column cuts with an ellipsis, the whole of it in a title', async () => {
    const id = await refusedCancel();
    watched.expectError(/409/);
    await page.goto(`${fake.url}/console/requests`);
    const row = page.locator('tr', { has: page.getByRole('button', { name: `Details of request ${id}` }) });
    const code = row.locator('td.code').getByText('order_not_cancellable', { exact: true });
    await code.waitFor();
    const layout = await code.evaluate((node) => {
      const element = node as unknown as Laid;
      const style = element.ownerDocument.defaultView.getComputedStyle(element);
      return {
        cut: element.scrollWidth > element.clientWidth,
        overflow: style.textOverflow,
        wraps: style.whiteSpace !== 'nowrap',
        title: element.closest('[title]')?.getAttribute('title'),
      };
    });
    // at this width the column is narrower than the code: the cut must show
    expect(layout).toEqual({ cut: true, overflow: 'ellipsis', wraps: false, title: 'order_not_cancellable' });
    expect(await seriousViolations(page)).toEqual([]);
  });

  it('explains what `applied` says of an opened request: a refusal changed nothing, a success ran', async () => {
    const refused = await refusedCancel();
    const listed = await partner('/v1/accounts?limit=1');
    watched.expectError(/409/);
    await page.goto(`${fake.url}/console/requests?ids=${refused},${listed}`);
    const applied = (id: string) =>
      page
        .locator('tr', { has: page.getByRole('button', { name: `Details of request ${id}` }) })
        .locator('xpath=following-sibling::tr[1]')
        .locator('dl.fields div', { hasText: /^applied/ })
        .locator('dd');
    await expect
      .poll(() => applied(refused).textContent())
      .toBe('no: refused (409 order_not_cancellable), so nothing changed');
    expect(await applied(listed).textContent()).toBe('yes: the operation ran and succeeded');
  });
});

describe("the clock's date field", () => {
  it("takes an instant in UTC as ISO 8601, not a date in the browser's locale, and refuses one it cannot read", async () => {
    await page.goto(`${fake.url}/console/`);
    const field = page.getByLabel('Set (UTC)');
    await field.waitFor();
    expect(await field.getAttribute('type')).toBe('text');
    expect(await field.getAttribute('placeholder')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    // the description says the format, and that the instant is UTC
    const described = await field.getAttribute('aria-describedby');
    expect(await page.locator(`#${described}`).textContent()).toMatch(/ISO 8601, UTC: 2031-02-03T16:05:00Z/);

    await field.fill('2031-02-03T16:05:00Z');
    await page.getByRole('button', { name: 'Set date' }).click();
    await expect.poll(() => page.locator('header time').textContent()).toMatch(/^2031-02-03 16:0[5-6]:\d\d UTC$/);
    expect((await fake.control.now()).now).toMatch(/^2031-02-03T16:0[5-6]/);

    // an instant without its Z is UTC too, as the label says
    await field.fill('2032-07-08T09:10');
    await page.getByRole('button', { name: 'Set date' }).click();
    await expect.poll(async () => (await fake.control.now()).now).toMatch(/^2032-07-08T09:1[0-1]/);

    // what is not an ISO instant is refused in the page, naming the format; the clock stays
    for (const text of ['07/08/2033 9:10 PM', '2033-07-08T21:10+02:00']) {
      await field.fill(text);
      await page.getByRole('button', { name: 'Set date' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('2031-02-03T16:05:00Z');
      expect((await fake.control.now()).now).toMatch(/^2032-07-08/);
    }
    expect(await seriousViolations(page)).toEqual([]);
  });
});

describe('the Fidelity view with shadow mode off', () => {
  it('shows the command with the port this fake runs on, and sends the traffic to its own origin', async () => {
    await page.goto(`${fake.url}/console/fidelity`);
    await page.getByText(/Shadow mode is off/).waitFor();
    const { port, origin } = new URL(fake.url);
    const text = (await page.locator('.empty-report').textContent())!;
    expect(await page.locator('.empty-report pre').textContent()).toBe(
      `npx investment-api-fake --port ${port} --upstream https://sandbox.platform.example`,
    );
    expect(text).toContain(`send your client's traffic to ${origin}`);
    expect(text).not.toContain('8080');
  });
});
