import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createControlClient, fetchToken, startServer, type FakeServer } from '../../src/index.js';
import { stateDirFixtures } from '../support/state-dirs.js';

const { running, stateDir, start } = stateDirFixtures();

const api = (fake: FakeServer, token: string, path: string, init: RequestInit = {}) =>
  fetch(`${fake.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });
const ACCOUNT = {
  type: 'individual',
  external_id: 'kept-1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  dob_day: 10,
  dob_month: 12,
  dob_year: 1985,
  country: 'GB',
  city: 'London',
  line1: '1 St James Sq',
  postal_code: 'SW1Y 4JH',
};

describe('STATE_DIR', () => {
  it('a restart keeps every tenant: clients, scopes, settings, worlds, clocks, faults, and the tokens issued before', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    const control = first.control;
    await control.addClient({
      client_id: 'acme',
      client_secret: 'acme-secret',
      scopes: ['read:accounts', 'write:accounts', 'control'],
      settings: { tax_reporting: false },
    });
    await control.forClient('acme').setClock('2031-05-01T12:00:00Z');
    const token = await fetchToken(first.url, 'acme', 'acme-secret');
    const created = await api(first, token, '/v1/accounts', { method: 'POST', body: JSON.stringify(ACCOUNT) });
    expect(created.status, await created.clone().text()).toBe(201);
    const account = (await created.json()) as { id: string };
    await control.forClient('acme').addFault({ path: '/v1/assets', status: 503, count: 2 });
    await control.forClient('acme').addFault({ method: 'POST', path: '/v1/accounts', drop: true, phase: 'after' });
    const link = (await control.forClient('acme').documents())[0]!.url;
    const before = {
      state: first.state('acme'),
      clients: await control.clients(),
      faults: await control.forClient('acme').faults(),
    };
    const { port } = first;
    await first.stop();
    running.splice(running.indexOf(first), 1);

    const second = await start({ stateDir: dir, port });
    expect(second.url).toBe(first.url);
    expect(second.state('acme')).toEqual(before.state);
    expect(await second.control.clients()).toEqual(before.clients);
    expect(await second.control.forClient('acme').faults()).toEqual(before.faults);
    expect(before.faults.map((f) => f.phase)).toEqual(['before', 'after']);
    const now = Date.parse((await second.control.forClient('acme').now()).now);
    expect(now - Date.parse('2031-05-01T12:00:00Z')).toBeGreaterThanOrEqual(0);
    expect(now - Date.parse('2031-05-01T12:00:00Z')).toBeLessThan(60_000);
    // the token issued before the restart (on acme's moved clock) still opens its account, and a document link too
    const read = await api(second, token, `/v1/accounts/${account.id}`);
    expect(read.status).toBe(200);
    const pdf = await fetch(link);
    expect(pdf.status).toBe(200);
  });

  it('orders that move by themselves go on where they stopped: the same investor orders and steps as a server never restarted', async () => {
    const settings = { order_progression: 'clock', investor_activity_per_hour: 120 } as const;
    const clients = [{ client_id: 'living', client_secret: 's', settings }];
    const halfHour = async (fake: FakeServer) => {
      await fake.control.advanceClock(1800);
      return fake.state();
    };
    const begin = async (fake: FakeServer) => {
      await fake.control.setClock('2031-05-01T12:00:00Z', { frozen: true });
      return halfHour(fake);
    };
    const uninterrupted = await start({ clients });
    await begin(uninterrupted);
    const expected = await halfHour(uninterrupted);

    const dir = stateDir();
    const first = await start({ clients, stateDir: dir });
    const midway = await begin(first);
    expect(midway.orders.length).toBeLessThan(expected.orders.length);
    await first.stop();
    running.splice(running.indexOf(first), 1);
    const second = await start({ clients, stateDir: dir });
    const after = await halfHour(second);
    expect(after.orders.length).toBeGreaterThan(midway.orders.length);
    expect(after).toEqual(expected);
    expect(second.orderSync(after.orders.at(-1)!.id)).toEqual(uninterrupted.orderSync(after.orders.at(-1)!.id));
  });

  it('writes a change within a second, without a stop; one file per tenant, the key PKCS#8 with mode 0600', async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    await fake.control.addClient({ client_id: 'written', client_secret: 's' });
    const since = Date.now();
    let files: string[] = [];
    while (Date.now() - since < 1000) {
      files = readdirSync(join(dir, 'tenants'));
      if (files.includes('written.json')) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(files).toContain('written.json');
    expect(Date.now() - since).toBeLessThan(1000);
    const file = JSON.parse(readFileSync(join(dir, 'tenants', 'written.json'), 'utf8'));
    expect(file).toMatchObject({
      format: 'investment-api-fake/tenant@1',
      client: { client_id: 'written', client_secret: 's' },
      clock_offset_ms: 0,
    });
    const key = join(dir, 'signing-key.pem');
    expect(readFileSync(key, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(statSync(key).mode & 0o777).toBe(0o600);
  });

  it('the JWKS kid is the key’s thumbprint, the same after a restart', async () => {
    const dir = stateDir();
    const jwks = async (fake: FakeServer) =>
      ((await (await fetch(`${fake.url}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys[0]!.kid;
    const first = await start({ stateDir: dir });
    const kid = await jwks(first);
    expect(kid).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await first.stop();
    expect(await jwks(await start({ stateDir: dir }))).toBe(kid);
  });

  it('a fault kept before faults had a phase comes back striking before the operation, as it did', async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    await fake.control.addClient({ client_id: 'acme', client_secret: 's' });
    await fake.control.forClient('acme').addFault({ path: '/v1/assets', status: 503 });
    await fake.stop();
    running.splice(0);
    const file = join(dir, 'tenants', 'acme.json');
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    delete kept.faults.faults[0].fault.phase;
    writeFileSync(file, JSON.stringify(kept));
    const again = await start({ stateDir: dir });
    expect(await again.control.forClient('acme').faults()).toMatchObject([
      { path: '/v1/assets', status: 503, phase: 'before' },
    ]);
  });

  it('a status history kept before histories named who placed an order (`placement`) comes back as `fixtures`; a placed order says who placed it', async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    await fake.control.addClient({ client_id: 'acme', client_secret: 's' });
    const acme = fake.control.forClient('acme');
    const order = (await acme.snapshot()).orders.find((o) => o.status === 'PLACED')!;
    await acme.advanceOrder(order.id);
    const placed = await acme.placeOrder(await placementFor(acme));
    expect((await acme.order(placed.id)).status_history.map((h) => h.by)).toEqual(['control']);
    await fake.stop();
    running.splice(0);
    const file = join(dir, 'tenants', 'acme.json');
    const kept = JSON.parse(readFileSync(file, 'utf8'));
    expect(kept.progression.history[order.id][0][2]).toBe('fixtures');
    kept.progression.history[order.id][0][2] = 'placement';
    writeFileSync(file, JSON.stringify(kept));
    const again = (await start({ stateDir: dir })).control.forClient('acme');
    expect((await again.order(order.id)).status_history.map((h) => h.by)).toEqual(['fixtures', 'control']);
    expect((await again.order(placed.id)).status_history.map((h) => h.by)).toEqual(['control']);
  });

  it('a file that is not JSON, fails the schema, breaks a world’s rules or names another client stops the start, naming the file', async () => {
    const dir = stateDir();
    const fake = await start({ stateDir: dir });
    await fake.control.addClient({ client_id: 'acme', client_secret: 's' });
    await fake.stop();
    running.splice(0);
    const file = join(dir, 'tenants', 'acme.json');
    const good = readFileSync(file, 'utf8');
    const parsed = JSON.parse(good);
    const cases: [string, RegExp][] = [
      ['{"format": ', /is not JSON/],
      [
        JSON.stringify({ ...parsed, format: 'investment-api-fake/tenant@0' }),
        /is not a valid tenant .*\n {2}\/format: must be equal to one of the allowed values/,
      ],
      [
        JSON.stringify({
          ...parsed,
          world: {
            ...parsed.world,
            orders: [{ ...parsed.world.orders[0], account_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }],
          },
        }),
        /\/world\/orders\/0\/account_id: no item of accounts has id "3fa85f64/,
      ],
      [
        JSON.stringify({ ...parsed, client: { ...parsed.client, client_id: 'globex' } }),
        /holds client "globex", whose file is "globex.json"/,
      ],
      [
        JSON.stringify({ ...parsed, clock_offset_ms: 1e16 }),
        /is not a valid tenant: The clock must stay between 1970-01-01T00:00:00Z and 9998-12-31T23:59:59Z/,
      ],
    ];
    for (const [text, message] of cases) {
      writeFileSync(file, text);
      const refused = await startServer({ stateDir: dir }).then(
        (f) => {
          running.push(f);
          return undefined;
        },
        (error: Error) => error,
      );
      expect(refused?.message).toContain(file);
      expect(refused?.message).toMatch(message);
    }
    writeFileSync(join(dir, 'signing-key.pem'), 'not a key');
    writeFileSync(file, good);
    await expect(startServer({ stateDir: dir })).rejects.toThrow(
      `The signing key "${join(dir, 'signing-key.pem')}" is not a PEM private key`,
    );
  });

  it('a write cut short leaves a temporary file that the next start removes, never reads', async () => {
    const dir = stateDir();
    await (await start({ stateDir: dir })).stop();
    running.splice(0);
    writeFileSync(join(dir, 'tenants', '.sandbox-client.json.123.1.tmp'), '{"half": ');
    await start({ stateDir: dir });
    expect(readdirSync(join(dir, 'tenants')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('SIGNING_KEY_FILE: two instances with one key accept each other’s tokens and publish one kid', async () => {
    const dir = stateDir();
    const { generateKeyPairSync } = await import('node:crypto');
    const keyFile = join(dir, 'replicas.pem');
    writeFileSync(
      keyFile,
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs1', format: 'pem' }) as string,
    );
    const baseUrl = 'http://127.0.0.1:1';
    const [a, b] = await Promise.all([
      start({ signingKeyFile: keyFile, baseUrl }),
      start({ signingKeyFile: keyFile, baseUrl }),
    ]);
    const local = (fake: FakeServer) => `http://127.0.0.1:${fake.port}`;
    const token = (await (
      await fetch(`${local(a)}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'openid offline',
          client_id: 'sandbox-client',
          client_secret: 'sandbox-secret',
          audience: '127.0.0.1:1',
        }),
      })
    ).json()) as { access_token: string };
    const onB = await fetch(`${local(b)}/v1/assets`, { headers: { authorization: `Bearer ${token.access_token}` } });
    expect(onB.status).toBe(200);
    const kids = await Promise.all(
      [a, b].map(
        async (f) =>
          ((await (await fetch(`${local(f)}/.well-known/jwks.json`)).json()) as { keys: { kid: string }[] }).keys[0]!
            .kid,
      ),
    );
    expect(kids[0]).toBe(kids[1]);
    await expect(startServer({ signingKeyFile: join(dir, 'missing.pem') })).rejects.toThrow(
      `SIGNING_KEY_FILE "${join(dir, 'missing.pem')}" cannot be read`,
    );
  });

  it('a client keeps its token_endpoint_auth_method across a restart; a file written before the field existed loads as client_secret_post', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    await first.control.addClient({
      client_id: 'basic-one',
      client_secret: 'b',
      token_endpoint_auth_method: 'client_secret_basic',
    });
    await first.control.addClient({ client_id: 'older', client_secret: 'o' });
    const { port } = first;
    await first.stop();
    running.splice(0);
    const kept = JSON.parse(readFileSync(join(dir, 'tenants', 'basic-one.json'), 'utf8'));
    expect(kept.client.token_endpoint_auth_method).toBe('client_secret_basic');
    // as the writer wrote it before token_endpoint_auth_method existed
    const olderFile = join(dir, 'tenants', 'older.json');
    const { token_endpoint_auth_method: _, ...olderClient } = JSON.parse(readFileSync(olderFile, 'utf8')).client;
    writeFileSync(olderFile, JSON.stringify({ ...JSON.parse(readFileSync(olderFile, 'utf8')), client: olderClient }));

    const second = await start({ stateDir: dir, port });
    const methods = Object.fromEntries(
      (await second.control.clients()).map((c) => [c.client_id, c.token_endpoint_auth_method]),
    );
    expect(methods).toEqual({
      'sandbox-client': 'client_secret_post',
      'basic-one': 'client_secret_basic',
      older: 'client_secret_post',
    });
    await expect(fetchToken(second.url, 'basic-one', 'b', { authMethod: 'client_secret_basic' })).resolves.toMatch(
      /^ey/,
    );
    await expect(fetchToken(second.url, 'basic-one', 'b')).rejects.toThrow(
      /invalid_client .*registered for client_secret_basic/,
    );
    await expect(fetchToken(second.url, 'older', 'o')).resolves.toMatch(/^ey/);
    await second.stop();
    running.splice(0);

    const file = join(dir, 'tenants', 'basic-one.json');
    writeFileSync(
      file,
      JSON.stringify({ ...kept, client: { ...kept.client, token_endpoint_auth_method: 'private_key_jwt' } }),
    );
    await expect(startServer({ stateDir: dir })).rejects.toThrow(
      new RegExp(`${file}.*\\n {2}/client/token_endpoint_auth_method: must be equal to one of the allowed values`),
    );
  });

  it('a partner keeps its control access across a restart (the scope lives in its client record)', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir, controlToken: 'ops' });
    const operator = createControlClient({ url: first.url, controlToken: 'ops' });
    await operator.addClient({ client_id: 'acme', client_secret: 's', scopes: ['read:accounts', 'control'] });
    const { port } = first;
    await first.stop();
    running.splice(0);
    const second = await start({ stateDir: dir, controlToken: 'ops', port });
    const partner = createControlClient({
      url: second.url,
      clientCredentials: { clientId: 'acme', clientSecret: 's' },
    });
    expect((await partner.clients()).map((c) => c.client_id)).toEqual(['acme']);
  });
});

/** A primary BUY the tenant's world can take. */
async function placementFor(control: ReturnType<FakeServer['control']['forClient']>) {
  const world = await control.snapshot();
  const asset = world.assets.find((a) => a.subscribeable)!;
  const account = world.accounts.find(
    (a) =>
      world.wallets.some((w) => w.account_id === a.id && w.is_primary) &&
      world.payment_method_details.some((p) => p.account_id === a.id && p.is_primary),
  )!;
  const minimum = world.share_classes.find((s) => s.id === asset.share_class_id)!.min_investment ?? 1;
  return {
    account_id: account.id,
    isin: asset.isin,
    side: 'BUY' as const,
    market: 'PRIMARY' as const,
    amount_of_units: 1,
    value: minimum,
  };
}
