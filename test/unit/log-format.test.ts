import { afterEach, describe, expect, it, vi } from 'vitest';
import { cliLogger, prettyLine, prettyStream } from '../../src/log-format.js';

const TIME = Date.parse('2026-03-04T12:03:04.567Z');
const request = (fields: Record<string, unknown> = {}) => ({
  level: 30,
  time: TIME,
  msg: 'request',
  reqId: '7',
  method: 'GET',
  path: '/v1/orders',
  status: 200,
  durationMs: 3.24,
  clientId: 'sandbox-client',
  ...fields,
});

/** A writable that keeps what it is given. */
function sink(isTTY: boolean) {
  const written: string[] = [];
  return { written, isTTY, write: (chunk: string) => written.push(chunk) > 0 } as unknown as NodeJS.WritableStream & {
    isTTY: boolean;
    written: string[];
  };
}

afterEach(() => {
  vi.unstubAllEnvs();
  vi.restoreAllMocks();
});

describe('prettyLine', () => {
  it('writes a request as time, method, path, status, duration, client and request id', () => {
    expect(prettyLine(request(), false)).toBe('12:03:04.567 GET    /v1/orders 200 3.2 ms sandbox-client 7');
  });

  it('rounds durations of 10 ms and more to whole milliseconds, and shows an unknown client as -', () => {
    expect(prettyLine(request({ durationMs: 12.7, clientId: null, method: 'DELETE' }), false)).toBe(
      '12:03:04.567 DELETE /v1/orders 200 13 ms - 7',
    );
  });

  it('leaves the duration out when the record has none', () => {
    expect(prettyLine(request({ durationMs: undefined }), false)).toBe(
      '12:03:04.567 GET    /v1/orders 200  sandbox-client 7',
    );
  });

  it('colours the status by its class on a terminal: 2xx green, 3xx cyan, 4xx yellow, 5xx red', () => {
    for (const [status, code] of [
      [200, 32],
      [302, 36],
      [404, 33],
      [503, 31],
    ] as const) {
      expect(prettyLine(request({ status }), true)).toContain(`\x1b[${code}m${status}\x1b[0m`);
    }
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the colour codes are what it checks
    expect(prettyLine(request(), true)).toMatch(/^\x1b\[2m12:03:04\.567\x1b\[0m /);
  });

  it('writes any other record as time, level name and message, with its other fields as JSON', () => {
    const line = prettyLine(
      { level: 40, time: TIME, msg: 'slow start', service: 'investment-api-fake', pid: 1, hostname: 'h', ms: 900 },
      false,
    );
    expect(line).toBe('12:03:04.567 warn slow start {"ms":900}');
    expect(prettyLine({ level: 35, time: TIME }, false)).toBe('12:03:04.567 35 ');
  });
});

describe('prettyStream', () => {
  it('turns each pino JSON line into a pretty line, without colour when the output is not a terminal', () => {
    const out = sink(false);
    prettyStream(out).write(`${JSON.stringify(request())}\n`);
    expect(out.written).toEqual(['12:03:04.567 GET    /v1/orders 200 3.2 ms sandbox-client 7\n']);
  });

  it('colours on a terminal unless NO_COLOR is set', () => {
    const tty = sink(true);
    prettyStream(tty).write(JSON.stringify(request()));
    expect(tty.written[0]).toContain('\x1b[32m200');
    vi.stubEnv('NO_COLOR', '1');
    const plain = sink(true);
    prettyStream(plain).write(JSON.stringify(request()));
    expect(plain.written[0]).not.toContain('\x1b[');
  });

  it('passes a line that is not JSON through unchanged', () => {
    const out = sink(false);
    prettyStream(out).write('not json\n');
    expect(out.written).toEqual(['not json\n']);
  });
});

describe('cliLogger', () => {
  it('logs pretty lines to stdout at the level asked', () => {
    const written: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(
      (chunk: string | Uint8Array) => written.push(String(chunk)) > 0,
    );
    const logger = cliLogger('warn', 'pretty');
    logger.info('not shown');
    logger.warn({ port: 8080 }, 'shown');
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/^\S+ warn shown \{"port":8080\}\n$/);
  });

  it('logs pino JSON otherwise, with the service named', () => {
    const logger = cliLogger('debug', 'json');
    expect(logger.level).toBe('debug');
    expect(logger.bindings()).toMatchObject({ service: 'investment-api-fake' });
  });
});
