import { describe, expect, it } from 'vitest';
import { HOST, http, testApp } from '../support/test-app.js';

const clockOf = async (app: ReturnType<typeof testApp>) =>
  Date.parse((await http(app).get('/__control/clock')).body.now as string);

/** Moves the default tenant's clock a day ahead, so a reset that went through shows. */
async function movedClock() {
  const app = testApp();
  await http(app).post('/__control/clock').send({ advance_seconds: 86_400 }).expect(200);
  return app;
}

describe('the control plane refuses other web origins (CSRF)', () => {
  it('a cross-origin POST /__control/reset answers 403 cross_origin_refused and resets nothing', async () => {
    const app = await movedClock();
    const response = await http(app)
      .post('/__control/reset')
      .set('Origin', 'https://evil.example')
      .set('Content-Type', 'application/json')
      .send('{}');
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('cross_origin_refused');
    expect(response.headers['content-type']).toMatch(/application\/problem\+json/);
    expect((await clockOf(app)) - Date.now()).toBeGreaterThan(86_000_000);
  });

  it.each([
    ['a foreign Origin', { Origin: 'http://localhost:3000' }],
    ['the opaque Origin "null" of a sandboxed page', { Origin: 'null' }],
    ['Sec-Fetch-Site: cross-site', { 'Sec-Fetch-Site': 'cross-site' }],
    ['Sec-Fetch-Site: same-site (another port of the same host)', { 'Sec-Fetch-Site': 'same-site' }],
    ['another scheme of the same host', { Origin: `https://${HOST}` }],
  ])('%s is refused on reads too', async (_name, headers) => {
    const response = await http(testApp()).get('/__control/state').set(headers);
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('cross_origin_refused');
  });

  it('a same-origin page (Origin equal to its own Host) keeps working, as the console does', async () => {
    const app = await movedClock();
    await http(app)
      .post('/__control/reset')
      .set({ Origin: `http://${HOST}`, 'Sec-Fetch-Site': 'same-origin' })
      .send({})
      .expect(204);
    expect(Math.abs((await clockOf(app)) - Date.now())).toBeLessThan(60_000);
  });

  it('a page at BASE_URL behind a proxy keeps working', async () => {
    const app = testApp({ baseUrl: 'https://sandbox.example.com' });
    expect((await http(app).get('/__control/state').set('Origin', 'https://sandbox.example.com')).status).toBe(200);
  });

  it('curl, SDKs and the typed client (no Origin) keep working, with or without a body', async () => {
    const app = await movedClock();
    await http(app).post('/__control/reset').expect(204);
    await http(app).post('/__control/reset').set('Content-Length', '0').expect(204);
    expect(Math.abs((await clockOf(app)) - Date.now())).toBeLessThan(60_000);
  });

  it.each([
    ['a form body', 'application/x-www-form-urlencoded', 'client_id=sandbox-client'],
    ['a text body', 'text/plain', '{"client_id":"sandbox-client"}'],
    ['a multipart body', 'multipart/form-data; boundary=x', '--x--'],
  ])('%s on the control plane answers 415 and changes nothing', async (_name, type, body) => {
    const app = await movedClock();
    const response = await http(app).post('/__control/reset').set('Content-Type', type).send(body);
    expect(response.status).toBe(415);
    expect(response.body.code).toBe('unsupported_media_type');
    expect(response.body.detail).toMatch(/application\/json/);
    expect((await clockOf(app)) - Date.now()).toBeGreaterThan(86_000_000);
  });
});

describe('the control token', () => {
  it('"Bearer" is case-insensitive, as on /v1 (RFC 7235)', async () => {
    const app = testApp({ controlToken: 'let-me-in' });
    for (const scheme of ['Bearer', 'bearer', 'BEARER']) {
      expect((await http(app).get('/__control/state').set('Authorization', `${scheme} let-me-in`)).status, scheme).toBe(
        200,
      );
    }
  });

  it('a wrong token of any length answers 401 with WWW-Authenticate', async () => {
    const app = testApp({ controlToken: 'let-me-in' });
    for (const token of ['x', 'let-me-i', 'let-me-inn', 'let-me-in'.repeat(50)]) {
      const response = await http(app).get('/__control/state').set('Authorization', `Bearer ${token}`);
      expect(response.status, token).toBe(401);
      expect(response.headers['www-authenticate']).toBe('Bearer realm="control"');
    }
  });
});
