import { describe, expect, it } from 'vitest';
import { rawConnection } from '../support/raw-socket.js';
import { stoppedAfterEachTest } from '../support/servers.js';
import { sleep } from '../support/waits.js';

// Node's own idle timer on a kept-alive socket, over real time: moved out of test/library/connections.test.ts so
// `npm test` does not wait two seconds on it; run by `npm run test:e2e`.
const start = stoppedAfterEachTest();

describe('keep-alive connections, over time', () => {
  it('with keepAliveTimeoutMs, serve a socket reused within it on the same socket and close one idle past it', async () => {
    // the same server setting as the 65 s default, on a scale a test can wait for (test/e2e/connections.test.ts: 6 s idle at the default)
    const fake = await start({ keepAliveTimeoutMs: 400 });
    const connection = await rawConnection(fake.port);
    expect((await connection.get('/__control/health')).headers['keep-alive']).toBe('timeout=0');
    await sleep(200);
    expect((await connection.get('/__control/health')).status).toBe(200);
    expect(connection.closedByServer).toBe(false);
    // Node closes an idle socket a second after the advertised timeout (the margin a client's own timer needs)
    await sleep(1800);
    expect(connection.closedByServer).toBe(true);
  });
});
