import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { httpFileOf } from '../../src/proof/export.js';
import { bodyValue } from '../../src/records/journal-body.js';
import { secretForms, withoutSecretValues } from '../../src/records/secrets.js';
import { IssuedIdentifiers } from '../../src/proof/vitest-export/identifiers.js';
import { noDifferenceFile, vitestFileOf } from '../../src/proof/vitest-export/index.js';
import { foreignCode, httpProblems, literalsOf, targetsOf } from '../support/generated-code.js';
import {
  hostile,
  hostileInputs,
  hostileRecords,
  hostileSession,
  type HostileInputs,
} from '../support/hostile-session.js';
import { propertyRuns } from '../support/runs.js';

/**
 * CONTRACT 16, "Generated code runs only what the fake wrote": whatever a session holds in any slot (its path, query,
 * headers, bodies, an upstream's answers and codes, a state's params, a reason, the client's id and secret), the
 * vitest files parse, with TypeScript's own parser, into the generator's statements and names only; the values they
 * send are the session's; the `.http` file is a block per request that no value reshapes. (Running such a file:
 * test/e2e/vitest-export.test.ts.)
 */
const RUNS = propertyRuns(300);
/** A vitest file of a whole session is parsed and its literals evaluated: half the runs. */
const FILE_RUNS = propertyRuns(150);
const SEED = Number(process.env.FUZZ_SEED ?? 20261129);

/** A value as the writer writes it: every string, key included, with the file's secrets replaced. */
function redacted(value: unknown, forms: readonly string[]): unknown {
  if (typeof value === 'string') return withoutSecretValues(value, forms);
  if (Array.isArray(value)) return value.map((item) => redacted(item, forms));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [withoutSecretValues(key, forms), redacted(item, forms)]),
  );
}

/** What the session's requests sent (JSON bodies), as JSON texts, as the file may write them. */
function sentValues(inputs: HostileInputs): Set<string> {
  const forms = secretForms([inputs.secret]);
  const sent = new Set<string>();
  for (const record of hostileRecords(inputs)) {
    if (record.control) continue;
    const body = bodyValue(record.requestBody);
    if (body !== null && typeof body === 'object') sent.add(JSON.stringify(redacted(body, forms)));
  }
  return sent;
}

/** The path and query of each request, as sent (its secrets replaced), as the file may write them. */
function sentTargets(inputs: HostileInputs): Set<string> {
  const forms = secretForms([inputs.secret]);
  const sent = new Set<string>();
  for (const record of hostileRecords(inputs)) {
    if (record.control) continue;
    const query = record.sentQuery;
    sent.add(withoutSecretValues(`${record.entry.path}${query === '' ? '' : `?${query}`}`, forms));
  }
  return sent;
}

describe('a vitest file written from a session with hostile values in every slot', () => {
  it("holds only the generator's code, and sends the session's values", () => {
    fc.assert(
      fc.property(hostileInputs, fc.boolean(), (inputs, fidelity) => {
        const file = vitestFileOf(hostileSession(inputs, fidelity));
        expect(foreignCode(file)).toEqual([]);
        const sent = sentValues(inputs);
        for (const value of literalsOf(file, 'json')) expect(sent).toContain(JSON.stringify(value));
        // each request goes to its path and query byte for byte, as sent
        const targets = sentTargets(inputs);
        for (const target of targetsOf(file)) expect(targets).toContain(target);
      }),
      { numRuns: FILE_RUNS, seed: SEED },
    );
  }, 300_000);

  it("shadow mode's file with no difference holds only the generator's code", () => {
    fc.assert(
      fc.property(hostile, fc.option(hostile, { nil: undefined }), (upstream, clientId) => {
        expect(foreignCode(noDifferenceFile(upstream, clientId, 'investment-api-fake', '0.0.0-test'))).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe('a .http file written from the same sessions', () => {
  it('is a block per request that no value adds to, ends early or points at a file, a handler or a variable', () => {
    fc.assert(
      fc.property(hostileInputs, hostile, (inputs, baseUrl) => {
        const records = hostileRecords(inputs).filter((record) => !record.control);
        const file = httpFileOf(records, { baseUrl, creator: { name: 'investment-api-fake', version: '0.0.0-test' } });
        expect(httpProblems(file, records.length)).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 120_000);
});

describe("the file's variables", () => {
  it("are named from outside names as identifiers that never take one of the file's own (SNAPSHOT_1, STEP)", () => {
    const ids = new IssuedIdentifiers();
    expect(
      ['SNAPSHOT_', 'STEP', 'account1', 'not an identifier', 'account'].map(
        (stem, i) => ids.add(`value-${i}`, stem).text,
      ),
    ).toEqual(['sNAPSHOT_1', 'sTEP1', 'account1_1', 'id1', 'account1']);
  });
});
