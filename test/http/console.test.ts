import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { consoleRoutes, defaultConsoleDir } from '../../src/http/console.js';
import { errorMiddleware } from '../../src/http/errors.js';
import { http, testApp } from '../support/test-app.js';

const INDEX =
  '<!doctype html><html lang="en"><head><title>Console</title><script type="module" src="/console/assets/app-ABC.js"></script></head><body><div id="app"></div></body></html>';

describe('the console is served by the fake', () => {
  let dir: string;
  let app: express.Express;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'app-ABC.js'), 'console.log("console")');
    app = express();
    // as in the fake's pipeline: the console's routes, then the one error renderer
    app.use(consoleRoutes(dir), errorMiddleware(pino({ level: 'silent' })));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('GET / leads to /console/', async () => {
    const response = await http(testApp()).get('/');
    expect(response.status).toBe(302);
    expect(response.headers.location).toBe('/console/');
  });

  it('/console without its slash leads to /console/', async () => {
    const response = await request(app).get('/console');
    expect(response.status).toBe(301);
    expect(response.headers.location).toBe('/console/');
  });

  it.each([
    '/console/',
    '/console/accounts/0b8c1f7e-1111-4222-8333-444455556666',
    '/console/orders/some-order',
    '/console/requests?status=4xx&path=/v1',
  ])('%s answers the console page, never cached, with a same-origin content policy', async (path) => {
    const response = await request(app).get(path);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(response.text).toBe(INDEX);
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['content-security-policy']).toContain("connect-src 'self'");
    expect(response.headers['content-security-policy']).toContain("script-src 'self'");
  });

  it('a hashed asset is served with a long, immutable cache lifetime', async () => {
    const response = await request(app).get('/console/assets/app-ABC.js');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/javascript/);
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('an unknown asset answers a 404 problem, not the page', async () => {
    const response = await request(app).get('/console/assets/app-NOPE.js');
    expect(response.status).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({
      status: 404,
      code: 'not_found',
      detail: expect.stringContaining('/console/assets/app-NOPE.js'),
    });
  });

  it('without a built bundle, /console/ answers a page saying how to build it, not a server error', async () => {
    const unbuilt = express().use(consoleRoutes(join(dir, 'missing')));
    for (const path of ['/console/', '/console/orders/x']) {
      const response = await request(unbuilt).get(path);
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toContain('npm run build');
    }
  });

  it('console paths are the fake’s own: not journaled and never faulted', async () => {
    const fake = testApp();
    await http(fake).post('/__control/faults').send({ status: 503 });
    const page = await http(fake).get('/');
    expect(page.status).toBe(302);
    await http(fake).get('/console/orders');
    const journal = await http(fake).get('/__control/requests');
    expect(journal.body.data).toEqual([]);
  });

  it('from its sources, the fake serves the built console of dist/console, never the template in console/', async () => {
    const response = await http(testApp()).get('/console/');
    // built or not (npm test does not build it), the page never names an asset the template leaves unfilled
    expect(response.text).not.toContain('%JS%');
    expect(response.text).not.toContain('%CSS%');
    expect(defaultConsoleDir()).toBe(fileURLToPath(new URL('../../dist/console/', import.meta.url)));
  });
});
