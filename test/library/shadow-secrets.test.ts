import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import type { Schemas } from '../../src/api/types.js';
import { shadowOfDeviatingUpstream } from '../support/deviating-upstream.js';

const SECRET = 'sandbox-secret';
const form = (fields: Record<string, string>): string => new URLSearchParams(fields).toString();

describe('shadow mode in front of an upstream that echoes the client its own credentials', () => {
  let stop: () => Promise<void>;
  let shadow: FakeServer;
  let token = '';
  beforeAll(async () => {
    ({ shadow, stop } = await shadowOfDeviatingUpstream(({ method, path, headers }, answer) => {
      const body = answer.body as Record<string, unknown>;
      const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1] ?? '';
      const echo = (credential: string) => ({
        note: `issued to sandbox-client with ${credential}!`,
        deep: [{ list: { of: [`x${credential}y`] } }],
        [credential]: 42,
      });
      // the token answer echoes the secret; an account's answer echoes the secret and the bearer token, nested, as
      // substrings, under a secret-named field of another type, as a key, and as an error's code
      if (method === 'POST' && path === '/oauth2/token' && answer.status === 200)
        return { status: 200, body: { ...body, ...echo(SECRET) } };
      if (method === 'POST' && path === '/v1/accounts')
        return {
          status: answer.status,
          body: { ...body, ...echo(bearer), copy: echo(SECRET), api_key: { value: SECRET, number: 7 } },
        };
      if (method === 'GET' && path.startsWith('/v1/accounts/'))
        return {
          status: 404,
          body: {
            type: 'about:blank',
            title: 'Not Found',
            status: 404,
            detail: `no ${bearer}`,
            code: `gone-${SECRET}`,
          },
        };
      return undefined;
    }));
    const host = new URL(shadow.url).host;
    const granted = await fetch(`${shadow.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({
        grant_type: 'client_credentials',
        scope: 'read:accounts write:accounts',
        client_id: 'sandbox-client',
        client_secret: SECRET,
        audience: host,
      }),
    });
    token = ((await granted.json()) as { access_token: string }).access_token;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${shadow.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(body !== undefined && { body: JSON.stringify(body) }),
      });
    const created = await call('POST', '/v1/accounts', {
      type: 'individual',
      external_id: 'echo-1',
      first_name: 'Ada',
      last_name: 'Lovelace',
      country: 'GB',
      dob_day: 10,
      dob_month: 12,
      dob_year: 1985,
    });
    expect(await created.text()).toContain(SECRET);
    await call('GET', '/v1/accounts/00000000-0000-4000-8000-000000000000');
  });
  afterAll(() => stop?.());

  it('shows neither the secret nor the token in the fidelity report (JSON and JUnit), the exports, the journal list, or a request read by id', async () => {
    const text = async (path: string) => (await fetch(`${shadow.url}${path}`)).text();
    const report = JSON.parse(await text('/__control/fidelity')) as Schemas['FidelityReport'];
    // the differences are there, their values redacted
    expect(report.differences.map((d) => d.pointer)).toEqual(
      expect.arrayContaining(['/note', '/deep', '/api_key', '/copy']),
    );
    const entries = (
      JSON.parse(await text('/__control/requests?client_id=sandbox-client&since=start')) as { data: { id: string }[] }
    ).data;
    expect(entries).toHaveLength(3);
    const everything = [
      JSON.stringify(report),
      await text('/__control/fidelity?format=junit'),
      await text('/__control/export?format=har&client_id=sandbox-client'),
      await text('/__control/export?format=http&client_id=sandbox-client'),
      JSON.stringify(entries),
      ...(await Promise.all(entries.map((e) => text(`/__control/requests/${e.id}`)))),
    ];
    for (const shown of everything) {
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(token);
      expect(shown).not.toContain(token.split('.')[2]);
    }
    expect(everything.join('\n')).toContain('[redacted]');
  });
});

describe('the same definition without shadow mode', () => {
  it("hides the client's own secret and token where a request carries them, and where the fake's answer echoes them", async () => {
    const fake = await startServer({ seed: 7 });
    try {
      const token = await fake.token();
      const created = await fetch(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          type: 'individual',
          external_id: `x-${SECRET}-y`,
          first_name: `a${token}`,
          last_name: 'Lovelace',
          country: 'GB',
          dob_day: 10,
          dob_month: 12,
          dob_year: 1985,
        }),
      });
      expect(await created.text()).toContain(SECRET);
      const id = created.headers.get('x-request-id')!;
      const shown = await (await fetch(`${fake.url}/__control/requests/${id}`)).text();
      expect(shown).toContain('[redacted]');
      expect(shown).not.toContain(SECRET);
      expect(shown).not.toContain(token);
    } finally {
      await fake.stop();
    }
  });
});
