// GET /__control/fidelity?format=vitest as text (the run itself: test/e2e/vitest-export.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { shadowOfDeviatingUpstream } from '../support/deviating-upstream.js';
import { scriptedSession } from '../support/shadow-session.js';
import { fidelityFileWithCodeInPaths } from '../support/code-in-paths.js';
import { codeShape, foreignCode } from '../support/generated-code.js';

describe("shadow mode's differences as a vitest file", () => {
  let behind: FakeServer;
  let upstreamUrl: string;
  let stop: () => Promise<void>;
  let shadow: FakeServer;
  beforeAll(async () => {
    ({ behind, upstreamUrl, shadow, stop } = await shadowOfDeviatingUpstream(({ method, path }, answer) => {
      if (method === 'POST' && path === '/v1/accounts' && answer.status === 201) {
        const { first_name: _, ...rest } = answer.body as Record<string, unknown>;
        return { status: 201, body: { ...rest, nickname: 'ada', dob_year: '1985', last_name: 'Byron' } };
      }
      if (method === 'DELETE' && path.startsWith('/v1/orders/') && answer.status === 200) {
        return {
          status: 409,
          body: { type: 'about:blank', title: 'Conflict', status: 409, detail: 'no', code: 'order_not_cancellable' },
        };
      }
      return undefined;
    }));
  });
  afterAll(() => stop?.());

  it("asserts the upstream's answers where the fake differed, the status elsewhere, and holds no secret nor token", async () => {
    const steps = await scriptedSession(shadow.url, behind.state());
    const token = (steps[0]!.body as { access_token: string }).access_token;
    const file = await shadow.control.fidelityVitest();
    expect([...file.matchAll(/^import .* from '([^']+)';$/gm)].map(([, from]) => from)).toEqual([
      'vitest',
      'investment-api-fake',
    ]);
    expect(file).toContain(`Shadow mode's differences between the fake and ${upstreamUrl}`);
    expect(file).toMatch(/it\("2\. POST \/v1\/accounts → 201 \(the upstream's answer, where the fake differed\)"/);
    expect(file).toContain(
      'for (const value of valuesAt(answer.body, "/nickname")) expect(value, `${STEP}: ${"missing_field at /nickname"}`).toBeDefined();',
    );
    expect(file).toContain(
      'for (const value of valuesAt(answer.body, "/first_name")) expect(value, `${STEP}: ${"extra_field at /first_name"}`).toBeUndefined();',
    );
    expect(file).toContain('expect(jsonType(value), `${STEP}: ${"type at /dob_year"}`).toBe("string");');
    expect(file).toContain('.toEqual("Byron");');
    // the cancel the upstream refused: its status and code
    expect(file).toMatch(/DELETE \/v1\/orders\/[\w-]+\/ → 409 order_not_cancellable \(the upstream's answer/);
    expect(file).not.toContain('sandbox-secret');
    expect(file).not.toContain(token);
  });

  it('names the client whose session it replays; one without a difference gets a file that says so', async () => {
    const named = await (await fetch(`${shadow.url}/__control/fidelity?format=vitest&client_id=sandbox-client`)).text();
    expect(named).toContain('in the session of client "sandbox-client"');
    const other = await (
      await fetch(`${shadow.url}/__control/fidelity?format=vitest`, { headers: { 'x-client-id': 'nobody-shadowed' } })
    ).text();
    expect(other).toContain('Shadow mode found no difference');
    expect(other).toContain('client "nobody-shadowed"');
  });
});

describe('with no difference', () => {
  it('answers a file that says so and passes', async () => {
    const upstream = await startServer({ seed: 7 });
    const shadow = await startServer({ seed: 7, upstream: upstream.url });
    try {
      await scriptedSession(shadow.url, upstream.state());
      const file = await shadow.control.fidelityVitest();
      expect(file).toContain(`Shadow mode found no difference between the fake and ${upstream.url}`);
      expect(file).toMatch(/^it\(".+", \(\) => \{\n {2}expect\(0\)\.toBe\(0\);\n\}\);$/m);
    } finally {
      await shadow.stop();
      await upstream.stop();
    }
  });
});

describe('an identifier that reads as code behind a line break (CONTRACT 16)', () => {
  it("stays text: each not-compared exchange's comment holds its line break escaped, and the file holds only the generator's code", async () => {
    const file = await fidelityFileWithCodeInPaths();
    // the line breaks (LF, U+2028, CR) decoded from the path end no comment: each shows as an escape
    const notReplayed = file.split(/\r\n|[\n\r\u2028\u2029]/).filter((line) => line.includes('// not replayed:'));
    expect(notReplayed).toHaveLength(3);
    for (const [i, escaped] of ['\\n', '\\u2028', '\\r'].entries())
      expect(notReplayed[i]).toContain(`"X${escaped}process.getBuiltinModule("fs")`);
    expect(foreignCode(file)).toEqual([]);
    expect(codeShape(file).names).not.toContain('process');
  });
});
