import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { bearer, http, testApp, tokenFor } from '../support/test-app.js';
import { targetsOf } from '../support/generated-code.js';

// CONTRACT 16, "Queries are data": a query's names are kept as sent, whatever they are (`constructor`, `toString`,
// `__proto__`), in the journal, in verify, in every export, and as the validator reads them.

const QUERY = 'constructor=3&toString=1&__proto__=4';
/** The names and values as sent, in order. */
const SENT = [
  ['constructor', '3'],
  ['toString', '1'],
  ['__proto__', '4'],
];

let app: Express;

beforeAll(async () => {
  app = testApp();
  const token = await tokenFor(app);
  await http(app).get(`/v1/accounts?${QUERY}`).set(bearer(token));
});

/** A JSON answer read so that a member named `__proto__` is a member (JSON.parse keeps it as its own). */
const json = (text: string): unknown => JSON.parse(text);

describe('a query whose names are those of an object’s prototype', () => {
  it('is refused by the validator naming each, as any unknown parameter', async () => {
    const own = testApp();
    const token = await tokenFor(own);
    for (const [name] of SENT) {
      const refused = await http(own).get(`/v1/accounts?${name}=1`).set(bearer(token));
      expect(refused.status, name).toBe(422);
      expect(refused.body.errors).toEqual([expect.objectContaining({ location: 'query', path: `/${name}` })]);
    }
  });

  it('is journaled as sent: GET /__control/requests and the request read by id', async () => {
    const list = json((await http(app).get('/__control/requests?client_id=sandbox-client')).text) as {
      data: { id: string; query: Record<string, string> }[];
    };
    const entry = list.data.find((e) => Object.keys(e.query).length > 0)!;
    expect(Object.entries(entry.query)).toEqual(SENT);
    const one = json((await http(app).get(`/__control/requests/${entry.id}`)).text) as {
      entry: { query: Record<string, string> };
    };
    expect(Object.entries(one.entry.query)).toEqual(SENT);
  });

  it('is found by verify, each name', async () => {
    for (const [name, value] of SENT) {
      // the pattern as JSON text: `__proto__` a member of it
      const body = `{"request":{"path":"/v1/accounts","query":{${JSON.stringify(name)}:${JSON.stringify(value)}}},"count":{"exactly":1}}`;
      const verified = await http(app)
        .post('/__control/verify?client_id=sandbox-client')
        .set('content-type', 'application/json')
        .send(body);
      expect(verified.body.matched, name).toBe(1);
    }
  });

  it('is exported as sent: HAR, .http, Pact and vitest', async () => {
    const exported = async (format: string) =>
      (
        await http(app)
          .get(`/__control/export?format=${format}&client_id=sandbox-client`)
          .buffer(true)
          .parse((res, done) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => done(null, text));
          })
      ).body as string;
    const har = json(await exported('har')) as {
      log: { entries: { request: { url: string; queryString: { name: string; value: string }[] } }[] };
    };
    const harRequest = har.log.entries.find((e) => e.request.queryString.length > 0)!.request;
    expect(harRequest.queryString.map(({ name, value }) => [name, value])).toEqual(SENT);
    expect(harRequest.url).toMatch(new RegExp(`/v1/accounts\\?${QUERY}$`));
    expect(await exported('http')).toContain(`GET {{base}}/v1/accounts?${QUERY}\n`);
    const pact = json(await exported('pact')) as { interactions: { request: { query?: Record<string, string[]> } }[] };
    expect(Object.entries(pact.interactions.find((i) => i.request.query)!.request.query!)).toEqual(
      SENT.map(([name, value]) => [name, [value]]),
    );
    const vitest = await exported('vitest');
    // the query on the request line as sent, byte for byte
    expect(targetsOf(vitest)).toContain(`/v1/accounts?${QUERY}`);
  });
});
