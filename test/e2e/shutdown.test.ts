import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { exitOf, killLaunched, launch } from '../support/cli.js';

afterEach(killLaunched);

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
}

function get(agent: http.Agent, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent, headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body }));
      })
      .on('error', reject);
  });
}

/** A slow answer on a keep-alive connection, and idle keep-alive connections beside it. */
async function keepAliveTraffic(url: string, control: FakeServer['control'] | undefined, token: string) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  await Promise.all(Array.from({ length: 3 }, () => get(agent, `${url}/.well-known/jwks.json`)));
  if (control) await control.addFault({ path: '/v1/assets', latency_ms: 800, count: 1 });
  const slow = get(agent, `${url}/v1/assets`, { authorization: `Bearer ${token}` });
  await new Promise((r) => setTimeout(r, 150));
  return { agent, slow };
}

describe('shutdown with keep-alive clients', () => {
  it('stop() answers the request in flight with Connection: close, closes idle connections, and resolves without waiting for keep-alive timeouts', async () => {
    const fake = await startServer();
    const { agent, slow } = await keepAliveTraffic(fake.url, fake.control, await fake.token());
    const started = Date.now();
    const stopped = fake.stop();
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');
    await stopped;
    // the keep-alive timeout of Node is 5 s: finishing well before it means no connection was left to time out
    expect(Date.now() - started).toBeLessThan(4000);
    await expect(fetch(`${fake.url}/__control/health`)).rejects.toThrow();
    await fake.stop(); // safe twice
    agent.destroy();
  });

  it('the CLI on SIGTERM answers the request in flight and exits 0 without waiting out the grace period', async () => {
    const { child, url, port } = await launch([], { LOG_LEVEL: 'silent' });
    const token = await fetch(`${url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'openid offline',
        client_id: 'sandbox-client',
        client_secret: 'sandbox-secret',
        audience: `127.0.0.1:${port}`,
      }),
    }).then((r) => r.json() as Promise<{ access_token: string }>);
    await fetch(`${url}/__control/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ path: '/v1/assets', latency_ms: 800, count: 1 }),
    });
    const { agent, slow } = await keepAliveTraffic(url, undefined, token.access_token);
    const started = Date.now();
    const exited = exitOf(child);
    child.kill('SIGTERM');
    const answer = await slow;
    expect(answer.status).toBe(200);
    expect(answer.connection).toBe('close');
    expect(await exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(4000);
    agent.destroy();
  });
});
