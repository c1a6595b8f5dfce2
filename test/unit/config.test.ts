import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, optionsFromCli, readFixturesFile, USAGE, type FakeOptions } from '../../src/config.js';
import { createContext } from '../../src/context.js';

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}, terminal = false) => optionsFromCli(argv, env, terminal);

describe('optionsFromCli', () => {
  it('falls back to the defaults: port 8080 on 127.0.0.1, level info, JSON logs off a terminal and pretty on one', () => {
    expect(parse([])).toEqual({ port: 8080, host: '127.0.0.1', logLevel: 'info', logFormat: 'json' });
    expect(parse([], {}, true)).toMatchObject({ logFormat: 'pretty' });
  });

  it('reads every setting from its environment variable', () => {
    const options = parse([], {
      PORT: '9000',
      HOST: '0.0.0.0',
      BASE_URL: 'http://fake:8080/',
      DOCS_URL: 'https://docs.example.com/files',
      SEED: '0',
      FIXTURES: '/fixtures/world.json',
      TOKEN_TTL_SECONDS: '60',
      CONTROL_TOKEN: 'ops',
      CLIENTS: '{"client_id":"acme","client_secret":"s"}',
      JOURNAL_SIZE: '10',
      LOG_LEVEL: 'warn',
      ALLOWED_HOSTS: ' fake.example.com, .corp ,,',
      MAX_TENANTS: '5',
      MAX_RECORDS_PER_TENANT: '50',
      MAX_TENANT_BYTES: '1048576',
      JOURNAL_BYTES: '2097152',
      JOURNAL_TOTAL_BYTES: '104857600',
      LOG_FORMAT: 'pretty',
    });
    expect(options).toEqual({
      port: 9000,
      host: '0.0.0.0',
      baseUrl: 'http://fake:8080',
      docsUrl: 'https://docs.example.com/files',
      seed: 0,
      fixtures: '/fixtures/world.json',
      tokenTtlSeconds: 60,
      controlToken: 'ops',
      clients: [{ client_id: 'acme', client_secret: 's' }],
      journalSize: 10,
      logLevel: 'warn',
      allowedHosts: ['fake.example.com', '.corp'],
      maxTenants: 5,
      maxRecordsPerTenant: 50,
      maxTenantBytes: 1_048_576,
      journalBytes: 2_097_152,
      journalTotalBytes: 104_857_600,
      logFormat: 'pretty',
    });
  });

  it('reads STATE_DIR, SIGNING_KEY_FILE and TRUST_PROXY (true or false, said plainly)', () => {
    expect(parse([], { STATE_DIR: '/state', SIGNING_KEY_FILE: '/keys/k.pem', TRUST_PROXY: 'true' })).toMatchObject({
      stateDir: '/state',
      signingKeyFile: '/keys/k.pem',
      trustProxy: true,
    });
    expect(parse(['--trust-proxy', '0'])).toMatchObject({ trustProxy: false });
    expect(() => parse([], { TRUST_PROXY: 'maybe' })).toThrow('TRUST_PROXY must be true or false, got "maybe".');
  });

  it('reads --demo as a switch and DEMO as a boolean, the flag winning', () => {
    expect(parse(['--demo'])).toMatchObject({ demo: true });
    expect(parse([], { DEMO: '1' })).toMatchObject({ demo: true });
    expect(parse([], { DEMO: 'false' })).toMatchObject({ demo: false });
    expect(parse(['--demo'], { DEMO: '0' })).toMatchObject({ demo: true });
    expect(parse([])).not.toHaveProperty('demo');
    expect(() => parse([], { DEMO: 'please' })).toThrow('DEMO must be true or false, got "please".');
    expect(() => parse(['--demo=1'])).toThrow(ConfigError);
    expect(USAGE).toMatch(/\n {2}--demo {2,}DEMO: /);
  });

  it('reads --demo-partner and DEMO_PARTNER as on or off (the demo partner runs unless off), the flag winning', () => {
    expect(parse(['--demo', '--demo-partner', 'off'])).toMatchObject({ demo: true, demoPartner: false });
    expect(parse(['--demo-partner=on'])).toMatchObject({ demoPartner: true });
    expect(parse([], { DEMO: '1', DEMO_PARTNER: 'off' })).toMatchObject({ demo: true, demoPartner: false });
    expect(parse([], { DEMO_PARTNER: 'OFF' })).toMatchObject({ demoPartner: false });
    expect(parse([], { DEMO_PARTNER: 'false' })).toMatchObject({ demoPartner: false });
    expect(parse(['--demo-partner', 'on'], { DEMO_PARTNER: 'off' })).toMatchObject({ demoPartner: true });
    expect(parse(['--demo'])).not.toHaveProperty('demoPartner');
    expect(() => parse([], { DEMO_PARTNER: 'later' })).toThrow('DEMO_PARTNER must be on or off, got "later".');
    expect(() => parse(['--demo-partner'])).toThrow(ConfigError);
    expect(USAGE).toMatch(
      /\n {2}--demo-partner <on\|off> +DEMO_PARTNER: under --demo, client demo-partner calls the API every few seconds/,
    );
  });

  it('lets a flag win over its variable', () => {
    expect(parse(['--port', '1234', '--log-level=debug'], { PORT: '9000', LOG_LEVEL: 'warn' })).toMatchObject({
      port: 1234,
      logLevel: 'debug',
    });
  });

  it('sizes the generated world from either of its two settings', () => {
    expect(parse(['--fixture-accounts', '3'])).toMatchObject({ fixtureScale: { accounts: 3 } });
    expect(parse([], { FIXTURE_ORDERS: '0' })).toMatchObject({ fixtureScale: { orders: 0 } });
    expect(parse(['--fixture-accounts', '3', '--fixture-orders', '4'])).toMatchObject({
      fixtureScale: { accounts: 3, orders: 4 },
    });
    expect(parse([])).not.toHaveProperty('fixtureScale');
  });

  it('answers help and version', () => {
    expect(parse(['--help'])).toBe('help');
    expect(parse(['-h'])).toBe('help');
    expect(parse(['-v'])).toBe('version');
    expect(USAGE).toContain('--max-records-per-tenant <n>');
  });

  it.each([
    [['--port=-1'], {}, '--port must be an integer from 0 to 65535, got "-1".'],
    [[], { PORT: '80.5' }, 'PORT must be an integer from 0 to 65535, got "80.5".'],
    [[], { PORT: '65536' }, 'PORT must be an integer from 0 to 65535, got "65536".'],
    [[], { SEED: '0x10' }, 'SEED must be an integer ≥ 0, got "0x10".'],
    [[], { SEED: '1e3' }, 'SEED must be an integer ≥ 0, got "1e3".'],
    [[], { TOKEN_TTL_SECONDS: ' ' }, 'TOKEN_TTL_SECONDS must be an integer ≥ 1, got " ".'],
    [['--base-url', 'localhost'], {}, '--base-url must be an absolute URL, got "localhost".'],
    [[], { LOG_LEVEL: 'loud' }, 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud".'],
    [[], { CLIENTS: '[' }, 'CLIENTS must be JSON'],
    [
      ['--clients', '[{"client_id":"acme"}]'],
      {},
      '--clients: every client needs a non-empty "client_id" and "client_secret".',
    ],
    [[], { CLIENTS: '[{"client_id":"","client_secret":"s"}]' }, 'CLIENTS: every client needs'],
    [[], { CLIENTS: '[]' }, 'CLIENTS must name at least one client.'],
    [[], { JOURNAL_BYTES: '1000' }, 'JOURNAL_BYTES must be an integer ≥ 65536, got "1000".'],
    [['--journal-total-bytes', '64MB'], {}, '--journal-total-bytes must be an integer ≥ 65536, got "64MB".'],
    [[], { MAX_TENANT_BYTES: '1e30' }, 'MAX_TENANT_BYTES must be an integer ≥ 4096, got "1e30".'],
    [['--max-tenant-bytes', '0'], {}, '--max-tenant-bytes must be an integer ≥ 4096, got "0".'],
    [['--prot', '1'], {}, "Unknown option '--prot'"],
    [['serve'], {}, 'serve'],
  ] as const)('refuses %j %j, naming the flag or variable the bad value came from', (argv, env, message) => {
    expect(() => parse([...argv], env)).toThrow(ConfigError);
    expect(() => parse([...argv], env)).toThrow(message);
  });
});

describe('CLIENTS', () => {
  it('is checked once, by the document, when the instance is made: a bad method names the client, the field and what it may be', () => {
    const options = parse([], {
      CLIENTS: '[{"client_id":"acme","client_secret":"s","token_endpoint_auth_method":"basic"}]',
    });
    expect(() => createContext(options as FakeOptions)).toThrow(
      'The client "acme" is not valid (1 problem(s)):\n  /token_endpoint_auth_method: must be equal to one of the allowed values: "client_secret_post", "client_secret_basic"',
    );
  });

  const refusal = (env: NodeJS.ProcessEnv): string => {
    try {
      parse([], env);
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error('not refused');
  };

  it.each([
    ['a line break', 'x\n::warning file=x::injected by client_id'],
    ['a space', 'acme web'],
    ['a slash', '../acme'],
    ['129 characters', 'a'.repeat(129)],
    ['a non-ASCII letter', 'acmé'],
  ])('refuses a client_id with %s at once, naming CLIENTS and the client, never echoing the value', (_, id) => {
    const clients = JSON.stringify([
      { client_id: 'acme', client_secret: 'secret-1' },
      { client_id: id, client_secret: 'secret-2' },
    ]);
    const message = refusal({ CLIENTS: clients });
    expect(message).toBe(
      'CLIENTS: the client_id of client 2 must be 1 to 128 characters of A-Z, a-z, 0-9 and . _ ~ -.',
    );
    expect(message).not.toContain('secret-2');
  });

  it('takes a client_id of 128 characters of A-Z, a-z, 0-9 and . _ ~ -', () => {
    const id = `Az09._~-${'x'.repeat(120)}`;
    expect(parse([], { CLIENTS: JSON.stringify([{ client_id: id, client_secret: 's' }]) })).toMatchObject({
      clients: [{ client_id: id }],
    });
  });

  it('never shows the text of CLIENTS, which holds secrets, when it is refused', () => {
    expect(refusal({ CLIENTS: '[{"client_id":"acme","client_secret":"hunter2"' })).not.toContain('hunter2');
    expect(refusal({ CLIENTS: '[{"client_id":"acme","client_secret":""}]' })).toBe(
      'CLIENTS: every client needs a non-empty "client_id" and "client_secret".',
    );
  });
});

describe('CONTROL_TOKEN', () => {
  it.each([['ops\ntoken'], ['ops token'], [' ops'], ['\u2028'], ['x'.repeat(4097)]])(
    'refuses %j, which no "Authorization: Bearer" header can carry, naming it and never echoing it',
    (token) => {
      expect(() => parse([], { CONTROL_TOKEN: token })).toThrow(
        'CONTROL_TOKEN must be 1 to 4096 visible ASCII characters, with no space or line break (it is sent as "Authorization: Bearer <token>").',
      );
      expect(() => parse(['--control-token', token])).toThrow(/^--control-token must be 1 to 4096/);
    },
  );

  it('takes visible ASCII', () => {
    expect(parse([], { CONTROL_TOKEN: 'ops-Token_1.~+/=!' })).toMatchObject({ controlToken: 'ops-Token_1.~+/=!' });
  });
});

describe('readFixturesFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fixtures-'));

  it('reads a JSON file', () => {
    const file = join(dir, 'world.json');
    writeFileSync(file, '{"orders":[]}');
    expect(readFixturesFile(file)).toEqual({ orders: [] });
  });

  it('names a file it cannot read, and one that is not JSON', () => {
    expect(() => readFixturesFile(join(dir, 'missing.json'))).toThrow(
      /^FIXTURES file ".*missing\.json" cannot be read: ENOENT/,
    );
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{');
    expect(() => readFixturesFile(broken)).toThrow(/^FIXTURES file ".*broken\.json" is not JSON: /);
  });
});
