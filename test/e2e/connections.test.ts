import { afterEach, describe, expect, it } from 'vitest';
import { killLaunched, launch } from '../support/cli.js';
import { rawConnection } from '../support/raw-socket.js';

afterEach(killLaunched);

describe('keep-alive connections of the CLI', () => {
  it('a socket idle 6 s and then reused is served on the same socket (Node’s default closed it at 6.0 s)', async () => {
    const { port } = await launch([], { LOG_LEVEL: 'silent' });
    const connection = await rawConnection(port);
    const first = await connection.get('/.well-known/jwks.json');
    expect(first.status).toBe(200);
    expect(first.headers['keep-alive']).toBe('timeout=65');
    await new Promise((resolve) => setTimeout(resolve, 6_500));
    expect(connection.closedByServer).toBe(false);
    expect((await connection.get('/.well-known/jwks.json')).status).toBe(200);
    expect(connection.closedByServer).toBe(false);
    connection.destroy();
  }, 20_000);

  it('KEEP_ALIVE_TIMEOUT_MS sets what is advertised and kept', async () => {
    const { port } = await launch([], { LOG_LEVEL: 'silent', KEEP_ALIVE_TIMEOUT_MS: '90000' });
    const connection = await rawConnection(port);
    expect((await connection.get('/.well-known/jwks.json')).headers['keep-alive']).toBe('timeout=90');
    connection.destroy();
  });
});
