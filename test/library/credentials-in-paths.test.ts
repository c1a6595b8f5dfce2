// Credentials in any spelling (docs/readiness.md, "The journal"): the client's secret and its tokens pasted into a path or a query, raw
// or percent-encoded any way (`%61cme` for `acme`, `%2E` for `.`, either case of hex, encoded twice), and in shadow
// mode the upstream's own token the client sends back, are in no list, entry or export.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createContext } from '../../src/context.js';
import { productApp } from '../../src/satellites.js';
import { startServer, type FakeServer } from '../../src/index.js';
import { http as supertestOf, tokenFor } from '../support/test-app.js';

const hex = (c: string, lower = false): string => {
  const code = c.charCodeAt(0).toString(16).padStart(2, '0');
  return `%${lower ? code : code.toUpperCase()}`;
};

/** A value as a partner's code may paste it into a URL: raw, its first letter encoded, its dots encoded, all of it in mixed case, encoded twice. */
function spellings(value: string): string[] {
  return [
    value,
    `${hex(value[0]!, true)}${value.slice(1)}`,
    value.replace(/\./g, '%2E'),
    value.replace(/\./g, '%2e'),
    [...value].map((c, i) => hex(c, i % 2 === 0)).join(''),
    `%25${hex(value[0]!).slice(1)}${value.slice(1).replace(/\./g, '%252E')}`,
  ];
}

/** Whether a text shows a value in any spelling: as it is, or percent-decoded once, twice or three times. */
function shows(text: string, value: string): boolean {
  let decoded = text;
  for (let i = 0; i < 4; i++) {
    if (decoded.includes(value)) return true;
    decoded = decoded.replace(/%([0-9a-f]{2})/gi, (_, code: string) => String.fromCharCode(parseInt(code, 16)));
  }
  return false;
}

/** Every surface a tenant's requests are shown on, by name: its list, each request by id, the exports and the report's JUnit. */
async function surfaces(url: string, clientId: string): Promise<Record<string, string>> {
  const text = async (path: string) => (await fetch(`${url}${path}`, { headers: { 'x-client-id': clientId } })).text();
  const list = await text('/__control/requests?since=start');
  const ids = (JSON.parse(list) as { data: { id: string }[] }).data.map((entry) => entry.id);
  const shown: Record<string, string> = { list };
  for (const id of ids) shown[`request ${id}`] = await text(`/__control/requests/${id}`);
  for (const format of ['har', 'http', 'pact', 'vitest'])
    shown[format] = await text(`/__control/export?format=${format}`);
  shown.junit = await text('/__control/report?format=junit');
  return shown;
}

const leaks = (shown: Record<string, string>, value: string): string[] =>
  Object.entries(shown)
    .filter(([, text]) => shows(text, value))
    .map(([name]) => name);

describe("the client's secret and token pasted into a path and a query", () => {
  const secret = 'acme.secret-0123456789';
  let fake: FakeServer;
  let token = '';
  let shown: Record<string, string>;
  beforeAll(async () => {
    fake = await startServer({
      seed: 1,
      clients: [{ client_id: 'acme', client_secret: secret, scopes: ['read:accounts', 'write:accounts'] }],
    });
    token = await fake.token('acme');
    const headers = { authorization: `Bearer ${token}` };
    for (const value of [secret, token]) {
      for (const spelled of spellings(value)) {
        await fetch(`${fake.url}/v1/accounts/${spelled}`, { headers });
        await fetch(`${fake.url}/v1/accounts?external_id=${spelled}`, { headers });
        await fetch(`${fake.url}/v1/accounts?${spelled}=1`, { headers });
      }
    }
    shown = await surfaces(fake.url, 'acme');
  });
  afterAll(() => fake?.stop());

  it('the spellings are the same value: the fake read each path as naming it', () => {
    expect(spellings(secret).map((s) => decodeURIComponent(decodeURIComponent(s)))).toEqual(Array(6).fill(secret));
    expect(Object.keys(shown).length).toBeGreaterThan(30);
  });

  it('shows the secret in none of them, in any spelling', () => {
    expect(leaks(shown, secret)).toEqual([]);
    expect(shown.list).toContain('[redacted]');
  });

  it('shows the token in none of them, in any spelling', () => {
    expect(leaks(shown, token)).toEqual([]);
    // its signature alone neither
    expect(leaks(shown, token.split('.')[2]!)).toEqual([]);
  });

  it('the vitest file says a step whose path carried a secret cannot be replayed, rather than send another path', () => {
    expect(shown.vitest).toMatch(/\/\/ not replayed: its path carried a secret/);
    expect(shown.vitest).not.toMatch(/send\("GET", "\/v1\/accounts\/\[redacted\]"/);
  });
});

/** An upstream whose tokens are opaque (no JWT shape): only the credentials the fake saw tell them. */
async function opaqueUpstream(token: string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method === 'POST' && req.url === '/oauth2/token') {
        res.end(
          JSON.stringify({
            access_token: token,
            token_type: 'Bearer',
            expires_in: 3600,
            scope: 'read:accounts write:accounts',
          }),
        );
      } else if (req.url?.startsWith('/v1/accounts?')) {
        // a list shaped otherwise than the fake's: a difference, so shadow mode's vitest file has this session
        res.end(JSON.stringify({ data: [], note: 'the upstream' }));
      } else {
        res.statusCode = 404;
        res.end(
          JSON.stringify({
            type: 'about:blank',
            title: 'Not Found',
            status: 404,
            detail: `nothing at ${req.url}`,
            code: 'not_found',
          }),
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe("in shadow mode, the upstream's own token sent back in a path and a query", () => {
  const token = 'opaque.upstream-token-0123456789';
  let upstream: Awaited<ReturnType<typeof opaqueUpstream>>;
  let shadow: FakeServer;
  let shown: Record<string, string>;
  beforeAll(async () => {
    upstream = await opaqueUpstream(token);
    shadow = await startServer({ seed: 7, upstream: upstream.url });
    const form = {
      grant_type: 'client_credentials',
      scope: 'read:accounts write:accounts',
      client_id: 'sandbox-client',
      client_secret: 'sandbox-secret',
      audience: new URL(shadow.url).host,
    };
    const granted = (await (
      await fetch(`${shadow.url}/oauth2/token`, { method: 'POST', body: new URLSearchParams(form) })
    ).json()) as { access_token: string };
    expect(granted.access_token).toBe(token);
    const headers = { authorization: `Bearer ${token}` };
    for (const spelled of spellings(token)) {
      await fetch(`${shadow.url}/v1/accounts/${spelled}`, { headers });
      await fetch(`${shadow.url}/v1/accounts?external_id=${spelled}`, { headers });
    }
    shown = await surfaces(shadow.url, 'sandbox-client');
    const text = async (path: string) => (await fetch(`${shadow.url}${path}`)).text();
    shown.fidelity = await text('/__control/fidelity');
    shown['fidelity junit'] = await text('/__control/fidelity?format=junit');
    shown['fidelity vitest'] = await text('/__control/fidelity?format=vitest&client_id=sandbox-client');
  });
  afterAll(async () => {
    await shadow?.stop();
    await upstream?.close();
  });

  it("shows it in no list, entry, export or report, in any spelling: the fidelity report's paths neither", () => {
    expect(shown['fidelity vitest']).toContain("the upstream's answer, where the fake differed");
    expect((JSON.parse(shown.fidelity!) as { differences: unknown[] }).differences.length).toBeGreaterThan(0);
    expect(leaks(shown, token)).toEqual([]);
    expect(shown.fidelity).toContain('/v1/accounts/[redacted]');
  });
});

describe("the request log line of a path that carries the client's credentials", () => {
  it('shows the path as the journal does: neither the secret nor the token, in any spelling', async () => {
    const lines: string[] = [];
    const ctx = createContext({
      allowedHosts: ['.test'],
      clients: [{ client_id: 'acme', client_secret: 'acme.secret-0123456789', scopes: ['read:accounts'] }],
    });
    ctx.logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const app = productApp(ctx);
    const token = await tokenFor(app, { client_id: 'acme', client_secret: 'acme.secret-0123456789' });
    for (const value of ['acme.secret-0123456789', token]) {
      for (const spelled of spellings(value))
        await supertestOf(app).get(`/v1/accounts/${spelled}`).set('Authorization', `Bearer ${token}`);
    }
    const requestLines = lines.filter((line) => line.includes('"msg":"request"') && line.includes('/v1/accounts/'));
    expect(requestLines).toHaveLength(12);
    expect(
      requestLines.filter((line) => shows(line, 'acme.secret-0123456789') || shows(line, token.split('.')[2]!)),
    ).toEqual([]);
    expect(requestLines.every((line) => line.includes('[redacted]'))).toBe(true);
  });
});
