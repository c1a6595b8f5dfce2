import { describe, expect, it } from 'vitest';
import { checkHost, hostPolicy } from '../../src/http/host-guard.js';
import { http, testApp } from '../support/test-app.js';

const defaults = hostPolicy();

describe('allowed Host values', () => {
  it.each([
    'localhost',
    'localhost:8080',
    'app.localhost:3000',
    'LOCALHOST.',
    '127.0.0.1:8080',
    '10.1.2.3',
    '[::1]:8080',
    '[fe80::1]',
    'fake:8080',
    'investment-api-fake',
    'fake_svc',
  ])('%s is accepted by default', (host) => expect(checkHost(host, defaults)).toBe('allowed'));

  it.each(['evil.com', 'attacker.example:8080', 'localhost.evil.com', '127.0.0.1.nip.io', 'fake.test'])(
    '%s is refused by default',
    (host) => {
      expect(checkHost(host, defaults)).toBe('not_allowed');
    },
  );

  it.each(['a b', 'host:port', 'x:99999999', '[::zz]', '[1.2.3.4]', '', 'a..b', 'evil.com@x', 'user@host'])(
    '%j is malformed',
    (host) => {
      expect(checkHost(host, defaults)).toBe('malformed');
    },
  );

  it('no Host at all (HTTP/1.0) is accepted: no browser omits it, so no page rebinds through its absence', () => {
    expect(checkHost(undefined, defaults)).toBe('allowed');
  });

  it('the BASE_URL host, ALLOWED_HOSTS names and leading-dot domains are accepted; "*" and "all" accept any', () => {
    const policy = hostPolicy(['fake.example.com', '.corp.internal', '*.ci.example'], ['https://sandbox.example.com']);
    for (const host of [
      'fake.example.com:8080',
      'sandbox.example.com',
      'corp.internal',
      'a.b.corp.internal',
      'runner.ci.example',
    ]) {
      expect(checkHost(host, policy), host).toBe('allowed');
    }
    for (const host of ['example.com', 'notcorp.internal', 'other.example.com'])
      expect(checkHost(host, policy), host).toBe('not_allowed');
    expect(checkHost('anything.example.org', hostPolicy(['*']))).toBe('allowed');
    expect(checkHost('anything.example.org', hostPolicy(['all']))).toBe('allowed');
  });
});

describe('the host guard', () => {
  it('a foreign Host (DNS rebinding) answers 403 host_not_allowed on the API, the control plane and the document', async () => {
    const app = testApp({ allowedHosts: [] });
    for (const path of ['/v1/assets', '/__control/state', '/openapi.json', '/docs']) {
      const response = await http(app, 'rebind.attacker.example').get(path);
      expect(response.status, path).toBe(403);
      expect(response.body.code, path).toBe('host_not_allowed');
      expect(response.body.detail).toMatch(/ALLOWED_HOSTS/);
    }
  });

  it('the token endpoint answers a foreign Host with the same 403 problem', async () => {
    const response = await http(testApp({ allowedHosts: [] }), 'rebind.attacker.example')
      .post('/oauth2/token')
      .type('form')
      .send({ grant_type: 'client_credentials' });
    expect(response.status).toBe(403);
    expect(response.body.code).toBe('host_not_allowed');
  });

  it('a POST /__control/reset through a rebound name changes nothing', async () => {
    const app = testApp({ allowedHosts: [] });
    await http(app, 'localhost').post('/__control/clock').send({ advance_seconds: 3600 }).expect(200);
    const before = (await http(app, 'localhost').get('/__control/clock')).body.now as string;
    expect((await http(app, 'rebind.attacker.example').post('/__control/reset')).status).toBe(403);
    const after = (await http(app, 'localhost').get('/__control/clock')).body.now as string;
    expect(Date.parse(after) - Date.parse(before)).toBeLessThan(60_000);
  });

  it('the health check answers whatever the Host', async () => {
    const response = await http(testApp({ allowedHosts: [] }), 'probe.cloud.example').get('/__control/health');
    expect(response.status).toBe(200);
  });

  it('docker service names, localhost, IPs and BASE_URL serve as usual', async () => {
    const app = testApp({ allowedHosts: [], baseUrl: 'https://sandbox.example.com' });
    for (const host of ['fake:8080', 'localhost:8080', '127.0.0.1:9', '[::1]:9', 'sandbox.example.com']) {
      expect((await http(app, host).get('/.well-known/jwks.json')).status, host).toBe(200);
    }
  });

  it('a malformed Host answers 400 malformed_host', async () => {
    const response = await http(testApp(), 'a b').get('/v1/assets');
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('malformed_host');
  });
});
