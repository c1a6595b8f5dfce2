import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startServer, type FakeServer } from '../../src/index.js';
import { launchBrowser, WatchedPage } from './support.js';

// A demo that moves at once: `--demo` as a new user meets it, the console's orders view opened as the
// fake starts and watched for a minute, on the real clock. Every 30 s something in it visibly changes: an order's
// status, or a new order.
const SESSION_MS = 60_000;
const WINDOW_MS = 30_000;

let browser: Browser;
let fake: FakeServer;

beforeAll(async () => {
  browser = await launchBrowser();
});
afterAll(async () => {
  await browser?.close();
  await fake?.stop();
});

describe('the demo in the console', () => {
  it('opens on the demo partner, whose Overview, Requests and Readiness show its session within 30 s of the start', async () => {
    const partnerFake = await startServer({ demo: true });
    const started = Date.now();
    const watched = await WatchedPage.open(browser, partnerFake.url);
    const { page } = watched;
    // what is left of the 30 s
    const inTime = () => ({ timeout: Math.max(1, 30_000 - (Date.now() - started)) });
    try {
      // a partner's session against the fake, run by the fake itself: the console's first pick under --demo
      await page.goto(`${partnerFake.url}/console/`);
      await page.getByRole('heading', { level: 1, name: 'Overview of demo-partner' }).waitFor();
      await expect
        .poll(() => page.getByRole('combobox', { name: 'Tenant' }).locator('option:checked').textContent())
        .toBe('demo-partner (demo partner)');
      // its last requests and a finding of its readiness report, in the overview
      await page.locator('section[aria-labelledby="last-h"] tbody tr', { hasText: '/v1/' }).first().waitFor(inTime());
      await page.locator('section[aria-labelledby="report-h"] code', { hasText: 'first_page_only' }).waitFor(inTime());
      // the Requests view: its calls, live
      await page.getByRole('link', { name: 'Requests' }).first().click();
      await page.locator('table.requests tbody tr', { hasText: '/v1/accounts' }).first().waitFor(inTime());
      // the Readiness view: the finding with what to change
      await page.getByRole('link', { name: 'Readiness' }).first().click();
      await page.locator('li.finding', { hasText: 'first_page_only' }).getByText('What to change:').waitFor(inTime());
      expect(Date.now() - started).toBeLessThan(30_000);
    } finally {
      await watched.close();
      await partnerFake.stop();
    }
  }, 60_000);

  it('shows orders arriving and moving in every 30 s of its first minute, the overview saying what its tiles count', async () => {
    fake = await startServer({ demo: true });
    const started = Date.now();
    const watched = await WatchedPage.open(browser, fake.url);
    const { page } = watched;
    await page.goto(`${fake.url}/console/orders`);
    await page.getByTestId('living').waitFor();

    // what the orders view shows of each order (its id and status; the countdowns tick by themselves and don't count)
    const visible = () =>
      page.locator('tbody tr').evaluateAll((rows) =>
        rows
          .map((row) => `${row.querySelector('a')?.textContent} ${row.querySelector('.order-status')?.textContent}`)
          .sort()
          .join('\n'),
      );
    const changes: { at: number; what: string }[] = [];
    let last = await visible();
    const firstSeen = last.split('\n').length;
    while (Date.now() - started < SESSION_MS) {
      await page.waitForTimeout(500);
      const now = await visible();
      if (now !== last) {
        const before = new Set(last.split('\n'));
        changes.push({
          at: Date.now() - started,
          what: now
            .split('\n')
            .filter((row) => !before.has(row))
            .join(', '),
        });
        last = now;
      }
    }
    const session = changes.map((c) => `${(c.at / 1000).toFixed(1)} s: ${c.what}`).join('\n');
    for (let window = 0; window * WINDOW_MS < SESSION_MS; window++) {
      const inWindow = changes.filter((c) => c.at > window * WINDOW_MS && c.at <= (window + 1) * WINDOW_MS);
      expect(
        inWindow.length,
        `nothing changed between ${(window * WINDOW_MS) / 1000} s and ${((window + 1) * WINDOW_MS) / 1000} s:\n${session}`,
      ).toBeGreaterThan(0);
    }
    // investors' orders arrived: more rows than the fixtures had, each new one with its next step counting down
    expect(last.split('\n').length, session).toBeGreaterThan(firstSeen);

    // the overview's tiles say what they count
    await page.getByRole('link', { name: 'Overview' }).first().click();
    const tiles = page.locator('.counts li');
    await expect
      .poll(() => tiles.allTextContents())
      .toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^\d+ Orders, any status$/),
          expect.stringMatching(/^\d+ Orders now in status placed$/),
        ]),
      );
    await watched.close();
  }, 120_000);
});
