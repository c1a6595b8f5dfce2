import { describe, expect, it } from 'vitest';
import type { Schemas } from '../../src/api/types.js';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';

// Journals shared fairly (docs/configuration.md, "Memory budgets"): past JOURNAL_TOTAL_BYTES the journal that holds the most gives first.
const CLIENTS = ['quiet', 'loud-1', 'loud-2'].map((client_id) => ({ client_id, client_secret: `${client_id}-secret` }));

describe('journals shared fairly', () => {
  it('two partners each sending ~3 MB with JOURNAL_TOTAL_BYTES=2000000 leave a third partner its 20 requests', async () => {
    const app = testApp({ clients: CLIENTS, journalTotalBytes: 2_000_000 });
    const auth = Object.fromEntries(
      await Promise.all(
        CLIENTS.map(async ({ client_id, client_secret }) => [
          client_id,
          bearer(await tokenFor(app, { client_id, client_secret })),
        ]),
      ),
    );
    for (let i = 0; i < 20; i++)
      await http(app)
        .get(`/v1/accounts?limit=${i + 1}`)
        .set(auth.quiet)
        .expect(200);
    // each a refused read whose query (counted twice: as sent and as shown) makes an entry of ~30 KB: 100 of them
    // ~3 MB a partner
    const padded = `/v1/accounts?pad=${'x'.repeat(14_000)}`;
    for (let i = 0; i < 100; i++) {
      await Promise.all(['loud-1', 'loud-2'].map((id) => http(app).get(padded).set(auth[id]).expect(422)));
    }
    const quiet = (
      await http(app).get('/__control/requests?since=start&path=/v1/accounts').set('X-Client-Id', 'quiet').expect(200)
    ).body.data as unknown[];
    expect(quiet).toHaveLength(20);
    const usage = (await http(app).get('/__control/usage').expect(200)).body as Schemas['Usage'];
    expect(usage.budgets.journal_total_bytes.used).toBeLessThanOrEqual(2_000_000);
    // the two loud partners hold about the same, together nearly all of the rest
    const [one, two] = ['loud-1', 'loud-2'].map(
      (id) => usage.largest.by_journal_bytes.find((row) => row.client_id === id)!.journal_bytes,
    );
    expect(Math.abs(one! - two!)).toBeLessThan(30_000);
  });
});
