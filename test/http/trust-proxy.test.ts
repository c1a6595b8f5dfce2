import { describe, expect, it } from 'vitest';
import { http, requestToken, testApp } from '../support/test-app.js';

// Behind a proxy that terminates TLS (docs/scaling.md): TRUST_PROXY takes the scheme from X-Forwarded-Proto.
const decode = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { iss: string };

describe('TRUST_PROXY', () => {
  it('with it, the token issuer, the discovery document and the console’s own origin take the forwarded https scheme', async () => {
    const app = testApp({ trustProxy: true });
    const token = await requestToken(app).set('X-Forwarded-Proto', 'https');
    expect(decode(token.body.access_token).iss).toBe('https://fake.test');
    const discovery = await http(app).get('/.well-known/openid-configuration').set('X-Forwarded-Proto', 'https');
    expect(discovery.body.token_endpoint).toBe('https://fake.test/oauth2/token');
    // the console, served at https://fake.test, posts with its own Origin
    const reset = await http(app)
      .post('/__control/reset')
      .set({ 'X-Forwarded-Proto': 'https', Origin: 'https://fake.test', 'Sec-Fetch-Site': 'same-origin' })
      .send({});
    expect(reset.status).toBe(204);
  });

  it('without it, X-Forwarded-Proto is ignored: a client cannot choose the scheme of the issuer', async () => {
    const app = testApp();
    const token = await requestToken(app).set('X-Forwarded-Proto', 'https');
    expect(decode(token.body.access_token).iss).toBe('http://fake.test');
    const reset = await http(app)
      .post('/__control/reset')
      .set({ 'X-Forwarded-Proto': 'https', Origin: 'https://fake.test' })
      .send({});
    expect(reset.status).toBe(403);
  });
});
