import { describe, expect, it } from 'vitest';
import { connectionTimeouts } from '../../src/server.js';
import { rawConnection } from '../support/raw-socket.js';
import { stoppedAfterEachTest } from '../support/servers.js';
import { until } from '../support/waits.js';

const start = stoppedAfterEachTest();

describe('keep-alive connections', () => {
  it('are kept 65 s by default, with the headers a second longer and the whole request at least 120 s', () => {
    expect(connectionTimeouts()).toEqual({ keepAliveTimeout: 65_000, headersTimeout: 66_000, requestTimeout: 120_000 });
    expect(connectionTimeouts(300_000)).toEqual({
      keepAliveTimeout: 300_000,
      headersTimeout: 301_000,
      requestTimeout: 301_000,
    });
  });

  it('advertise the 65 s they are kept (Keep-Alive: timeout=65)', async () => {
    const fake = await start();
    const connection = await rawConnection(fake.port);
    const answer = await connection.get('/__control/health');
    expect(answer.status).toBe(200);
    expect(answer.headers['keep-alive']).toBe('timeout=65');
    connection.destroy();
  });

  it('are closed at once by stop(), which resolves well under a second with idle clients', async () => {
    const fake = await start();
    const connections = await Promise.all(Array.from({ length: 20 }, () => rawConnection(fake.port)));
    for (const connection of connections) expect((await connection.get('/__control/health')).status).toBe(200);
    const started = performance.now();
    await fake.stop();
    expect(performance.now() - started).toBeLessThan(500);
    await until(() => connections.every((c) => c.closedByServer), 2000, 5);
    expect(connections.every((c) => c.closedByServer)).toBe(true);
  });
});
