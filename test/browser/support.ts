import axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { startServer, type FakeOptions, type FakeServer } from '../../src/index.js';

/** Debian's Chromium; CHROMIUM_PATH points elsewhere (or at nothing, to see the suite fail). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    // nothing of the browser's own reaches the network: no updates, no sync, no QUIC probing
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/**
 * A fake started with `options` and a browser for the test file, handed to `take` before the file's tests run (each
 * file keeps them in its own variables), both closed after it.
 */
export function fakeAndBrowserPerFile(
  options: FakeOptions,
  take: (opened: { fake: FakeServer; browser: Browser }) => void,
): void {
  let opened: { fake: FakeServer; browser: Browser } | undefined;
  beforeAll(async () => {
    const [fake, browser] = await Promise.all([startServer(options), launchBrowser()]);
    opened = { fake, browser };
    take(opened);
  });
  afterAll(async () => {
    await opened?.browser.close();
    await opened?.fake.stop();
  });
}

export const VIEWPORT = { width: 1280, height: 800 };

/**
 * A fresh browser context (its own sessionStorage) watched for what must never happen: a request to another origin
 * (aborted, and recorded), a console error, an uncaught page error, a dialog (an injected `alert`).
 */
export class WatchedPage {
  readonly errors: string[] = [];
  readonly foreignRequests: string[] = [];
  readonly requests: string[] = [];
  readonly dialogs: string[] = [];
  /** The first tab, opened once the context is watched. */
  page!: Page;
  /** Console errors the test provokes on purpose (Chromium logs every 4xx answer to a fetch as one). */
  private readonly expected: RegExp[] = [];

  private constructor(
    readonly context: BrowserContext,
    readonly origin: string,
  ) {}

  static async open(browser: Browser, origin: string): Promise<WatchedPage> {
    const context = await browser.newContext({ viewport: VIEWPORT, acceptDownloads: true });
    const watched = new WatchedPage(context, origin);
    // on the context, before any page: a tab the console opens is watched as well
    await context.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin) return route.continue();
      watched.foreignRequests.push(url);
      return route.abort('blockedbyclient');
    });
    context.on('request', (request) => void watched.requests.push(request.url()));
    context.on('console', (message) => {
      if (message.type() === 'error') watched.errors.push(`console: ${message.text()} (${message.location().url})`);
    });
    context.on('weberror', (error) => void watched.errors.push(`page error: ${error.error().message}`));
    context.on('dialog', (dialog) => {
      watched.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
      void dialog.dismiss();
    });
    watched.page = await context.newPage();
    // shorter than the test's own timeout, so a missing element fails naming its locator
    watched.page.setDefaultTimeout(10_000);
    return watched;
  }

  /** A console error the test provokes: a refusal it asks for, such as a 422 of a broken market rule. */
  expectError(pattern: RegExp): void {
    this.expected.push(pattern);
  }

  /** Asserts nothing forbidden happened. */
  async close(): Promise<void> {
    await this.context.close();
    expect(this.errors.filter((e) => !this.expected.some((a) => a.test(e)))).toEqual([]);
    expect(this.dialogs).toEqual([]);
    expect(this.foreignRequests).toEqual([]);
    // data: (the page's empty icon) and blob: (a snapshot download) never leave the machine
    expect(this.requests.filter((url) => !/^(data|blob):/.test(url) && new URL(url).origin !== this.origin)).toEqual(
      [],
    );
  }
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's serious and critical violations on the page as it is now, one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated through the DevTools protocol, so the console's script-src 'self' does not refuse it
  await page.evaluate(axe.source);
  const violations = await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run: (context: unknown, options: unknown) => Promise<{ violations: AxeViolation[] }> };
      }
    ).axe
      .run((globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] })
      .then((r) => r.violations),
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`);
}
