import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { banner, exposureWarning, isLoopback, type BannerFacts } from '../../src/banner.js';
import type { CliOptions } from '../../src/config.js';

const at = (address: string, port = 8080): AddressInfo => ({
  address,
  port,
  family: address.includes(':') ? 'IPv6' : 'IPv4',
});
const cli = (options: Partial<CliOptions> = {}): CliOptions => ({
  port: 8080,
  host: '127.0.0.1',
  logFormat: 'json',
  ...options,
});

function facts(overrides: Partial<BannerFacts> = {}): BannerFacts {
  return {
    version: '1.2.3',
    address: at('127.0.0.1'),
    options: cli(),
    defaultClient: { client_id: 'sandbox-client', client_secret: 'sandbox-secret' },
    clientCount: 1,
    ...overrides,
  };
}

describe('banner', () => {
  it('names the address, the token call with its audience under both loopback names, the docs, the console, an open control plane and the seed', () => {
    const lines = banner(facts()).split('\n');
    expect(lines[0]).toBe(
      `investment-api-fake 1.2.3 (Node ${process.versions.node}) listening on 127.0.0.1:8080: http://127.0.0.1:8080`,
    );
    expect(lines[1]).toBe('  token          POST http://127.0.0.1:8080/oauth2/token');
    expect(lines[2]).toBe(
      '                 client_id=sandbox-client client_secret=sandbox-secret; audience: the host part of the URL you call',
    );
    expect(lines[3]).toBe(
      '                 audience=127.0.0.1:8080 when you call http://127.0.0.1:8080, localhost:8080 when you call http://localhost:8080',
    );
    expect(lines[4]).toBe('  API reference  http://127.0.0.1:8080/docs');
    expect(lines[5]).toBe('  console        http://127.0.0.1:8080/console/');
    expect(lines[6]).toBe('  control plane  http://127.0.0.1:8080/__control (open: set CONTROL_TOKEN to guard it)');
    expect(lines[7]).toBe('  world          seed 1; logs json, level info');
    expect(lines[8]).toBe('');
  });

  it('names a demo sandbox and what moves in it, and says nothing of it otherwise', () => {
    expect(banner(facts({ options: cli({ demo: true }) }))).toContain(
      "  demo           sandbox-client's orders move on its clock; end investors place an order about every 30 s",
    );
    expect(banner(facts())).not.toContain('demo');
    // the demo partner, when it runs: where to watch it, and how to leave it out
    expect(banner(facts({ options: cli({ demo: true }), demoPartner: true }))).toContain(
      '  demo partner   demo-partner calls the API every few seconds as a partner would: its Overview, Requests and Readiness at http://127.0.0.1:8080/console/ (--demo-partner off leaves it out)',
    );
    expect(banner(facts({ options: cli({ demo: true }) }))).not.toContain('demo partner');
    expect(banner(facts({ options: cli({ upstream: 'https://sandbox.example.com' }) }))).toContain(
      '  shadow mode    /oauth2/token and /v1 answered by https://sandbox.example.com',
    );
    expect(banner(facts())).not.toContain('shadow mode');
  });

  it('on every interface, points a person at localhost, whose audience comes first, then 127.0.0.1, and counts the other clients', () => {
    const text = banner(facts({ address: at('0.0.0.0', 9000), clientCount: 2 }));
    expect(text).toContain('listening on all interfaces, port 9000: http://localhost:9000\n');
    expect(text).toContain(
      'client_secret=sandbox-secret (+1 more clients); audience: the host part of the URL you call\n',
    );
    expect(text).toContain(
      'audience=localhost:9000 when you call http://localhost:9000, 127.0.0.1:9000 when you call http://127.0.0.1:9000\n',
    );
  });

  it('names a single audience on an address with no other name: IPv6 loopback (bracketed), another 127.x, a LAN address', () => {
    expect(banner(facts({ address: at('::1', 8081) }))).toContain('listening on [::1]:8081: http://[::1]:8081\n');
    expect(banner(facts({ address: at('::1', 8081) }))).toContain('client_secret=sandbox-secret audience=[::1]:8081\n');
    expect(banner(facts({ address: at('127.0.0.2') }))).toContain(
      'client_secret=sandbox-secret audience=127.0.0.2:8080\n',
    );
    const lan = banner(facts({ address: at('192.168.1.10') }));
    expect(lan).toContain('client_secret=sandbox-secret audience=192.168.1.10:8080\n');
    expect(lan).not.toContain('when you call');
  });

  it('takes the base URL and its host as audience from BASE_URL, and names a guard, fixtures, level and other clients', () => {
    const text = banner(
      facts({
        options: cli({
          baseUrl: 'https://fake.example.com',
          controlToken: 'ops',
          fixtures: '/fixtures/world.json',
          logFormat: 'pretty',
          logLevel: 'debug',
        }),
        clientCount: 3,
      }),
    );
    expect(text).toContain('POST https://fake.example.com/oauth2/token\n');
    expect(text).toContain(
      'client_id=sandbox-client client_secret=sandbox-secret audience=fake.example.com (+2 more clients)\n',
    );
    expect(text).not.toContain('when you call');
    expect(text).toContain('https://fake.example.com/__control (guarded: send Authorization: Bearer <CONTROL_TOKEN>)');
    expect(text).toContain('world          fixtures /fixtures/world.json; logs pretty, level debug');
  });

  it('names STATE_DIR when set, and says nothing of state otherwise', () => {
    expect(banner(facts({ options: cli({ stateDir: '/state' }) }))).toContain(
      '  state          /state (every tenant and the signing key kept across restarts)\n',
    );
    expect(banner(facts())).not.toContain('state ');
  });

  it('names the seed it was given', () => {
    expect(banner(facts({ options: cli({ seed: 42 }) }))).toContain('world          seed 42;');
  });
});

describe('exposureWarning', () => {
  it('warns of an open control plane on an address other machines reach, naming the port and the remedies', () => {
    const warning = exposureWarning(at('0.0.0.0', 8080), cli({ host: '0.0.0.0' }));
    expect(warning).toMatch(
      /^warning: listening on 0\.0\.0\.0 with an open control plane: anyone who can reach port 8080/,
    );
    expect(warning).toContain('Set CONTROL_TOKEN');
    expect(warning).toContain('HOST=127.0.0.1');
  });

  it('says nothing on a loopback address, nor with a CONTROL_TOKEN', () => {
    expect(exposureWarning(at('127.0.0.1'), cli())).toBeUndefined();
    expect(exposureWarning(at('0.0.0.0'), cli({ controlToken: 'ops' }))).toBeUndefined();
  });
});

describe('isLoopback', () => {
  it.each(['localhost', '127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'])(
    '%s is reachable from this machine only',
    (address) => {
      expect(isLoopback(address)).toBe(true);
    },
  );

  it.each(['0.0.0.0', '::', '192.168.1.10', 'fake', '::ffff:10.0.0.1'])('%s is not', (address) => {
    expect(isLoopback(address)).toBe(false);
  });
});
