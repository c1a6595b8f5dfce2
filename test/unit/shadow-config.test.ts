import { describe, expect, it } from 'vitest';
import { optionsFromCli, USAGE } from '../../src/config.js';

const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  optionsFromCli(argv, env) as Exclude<ReturnType<typeof optionsFromCli>, 'help' | 'version'>;

describe('shadow mode settings', () => {
  it('takes --upstream or UPSTREAM_URL, the flag first, without a trailing slash', () => {
    expect(parse(['--upstream', 'https://sandbox.example.com/']).upstream).toBe('https://sandbox.example.com');
    expect(parse([], { UPSTREAM_URL: 'http://127.0.0.1:8081' }).upstream).toBe('http://127.0.0.1:8081');
    expect(parse(['--upstream', 'https://a.example.com'], { UPSTREAM_URL: 'https://b.example.com' }).upstream).toBe(
      'https://a.example.com',
    );
    expect(parse([]).upstream).toBeUndefined();
  });

  it('refuses an upstream that is not an http(s) base URL, or carries credentials, naming where it came from', () => {
    expect(() => parse(['--upstream', 'sandbox'])).toThrow(
      '--upstream must be an absolute http(s) URL, got "sandbox".',
    );
    expect(() => parse([], { UPSTREAM_URL: 'ftp://sandbox.example.com' })).toThrow(
      'UPSTREAM_URL must be an http:// or https:// URL',
    );
    expect(() => parse(['--upstream', 'https://u:p@sandbox.example.com'])).toThrow(
      '--upstream must not carry credentials',
    );
    expect(() => parse(['--upstream', 'https://sandbox.example.com/?x=1'])).toThrow('without a query or fragment');
  });

  it('never shows an upstream that may hold credentials, however malformed', () => {
    for (const value of ['https://u:hunter2@sandbox.example.com', 'https://u:hunter2@bad host', 'ftp://u:hunter2@x'])
      expect(() => parse([], { UPSTREAM_URL: value })).toThrow(/^UPSTREAM_URL must [^"]*\.$/);
  });

  it('takes the upstream timeout in ms', () => {
    expect(parse(['--upstream-timeout', '2500']).upstreamTimeoutMs).toBe(2500);
    expect(parse([], { UPSTREAM_TIMEOUT_MS: '700' }).upstreamTimeoutMs).toBe(700);
    expect(() => parse([], { UPSTREAM_TIMEOUT_MS: '0' })).toThrow('UPSTREAM_TIMEOUT_MS must be an integer ≥ 1');
    expect(USAGE).toMatch(/\n {2}--upstream <url> +UPSTREAM_URL: shadow mode/);
  });

  it('takes MAX_TWINS, 0 included (no twin: forwarded and answered, never compared)', () => {
    expect(parse(['--max-twins', '10']).maxTwins).toBe(10);
    expect(parse([], { MAX_TWINS: '0' }).maxTwins).toBe(0);
    expect(() => parse([], { MAX_TWINS: '-1' })).toThrow('MAX_TWINS must be an integer ≥ 0');
    expect(USAGE).toMatch(/\n {2}--max-twins <n> +MAX_TWINS: shadow mode: twin tenants at most/);
  });
});
