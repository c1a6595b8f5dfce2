import { describe, expect, it } from 'vitest';
import { stateDirFixtures } from '../support/state-dirs.js';

const { stateDir, start, stopped } = stateDirFixtures();

describe('the vitest export after a restart over STATE_DIR', () => {
  it('says the span began from a restored world it does not hold, skipped; a reset starts a span it replays', async () => {
    const dir = stateDir();
    const first = await start({ stateDir: dir });
    await first.control.addClient({ client_id: 'acme', client_secret: 'acme-secret-0123456789' });
    await first.control.forClient('acme').setClock('2031-05-01T12:00:00Z');
    await stopped(first);

    const second = await start({ stateDir: dir });
    await second.token('acme');
    const restored = second.exportRequests('vitest', { clientId: 'acme' });
    expect(restored).toContain('NOT REPLAYED: the span began from a world restored from STATE_DIR');
    expect(restored).toContain('describe.skip("session of acme"');
    second.reset('acme');
    expect(second.exportRequests('vitest', { clientId: 'acme' })).not.toContain('NOT REPLAYED');
  });
});
