// The action's job summary and file names (action/src/summary.ts, action/src/file-names.ts), from reports as the
// control plane answers them: what a partner reads first when a run has findings.
import { describe, expect, it } from 'vitest';
import { fileStems } from '../../action/src/file-names.js';
import type { ClientReports, RunReports } from '../../action/src/reports.js';
import { code, renderSummary, text } from '../../action/src/summary.js';
import type { Schemas } from '../../src/api/types.js';

const context = { reportsDir: '/tmp/r', failOnFindings: false, docsBase: 'https://docs.example/' };
const finding = (
  code: Schemas['ReadinessFinding']['code'],
  severity: 'error' | 'warning',
  message: string,
): Schemas['ReadinessFinding'] => ({
  code,
  severity,
  message,
  hint: `fix ${code}`,
  docs: `docs/readiness.md#${code}`,
  requests: ['1'],
});
const client = (
  clientId: string,
  findings: Schemas['ReadinessFinding'][],
  requests = 5,
  extra: Partial<ClientReports> = {},
): ClientReports => ({
  clientId,
  readiness: { client_id: clientId, requests_seen: requests, findings },
  differences: [],
  files: [`${clientId}.junit.xml`],
  ...extra,
});

describe('the job summary', () => {
  it('heads each client with its findings, errors first, each with its rule linked, what it did and what to change', () => {
    const run: RunReports = {
      clients: [
        client('acme', [
          finding('unused_scopes', 'warning', 'asked read:x'),
          finding('wrong_path', 'error', 'GET /v1/acounts thrice'),
        ]),
      ],
    };
    const markdown = renderSummary(run, context);
    expect(markdown).toContain('**❌ 2 findings (1 error, 1 warning)** for 1 of 1 client.');
    const rows = markdown.split('\n').filter((l) => l.startsWith('| ['));
    expect(rows).toEqual([
      '| [`wrong_path`](https://docs.example/docs/readiness.md#wrong_path) | error | GET /v1/acounts thrice | fix wrong_path |',
      '| [`unused_scopes`](https://docs.example/docs/readiness.md#unused_scopes) | warning | asked read:x | fix unused_scopes |',
    ]);
    expect(markdown).not.toContain('The step fails');
    expect(renderSummary(run, { ...context, failOnFindings: true })).toContain(
      'The step fails: `fail-on-findings` is `true`.',
    );
  });

  it('says a clean run in one line, and names the clients that sent nothing apart', () => {
    const markdown = renderSummary({ clients: [client('a', []), client('b', [], 0), client('c', [], 0)] }, context);
    expect(markdown).toContain('**✅ No findings** over 5 requests of 3 clients.');
    expect(markdown).toContain('### ✅ `a`: no findings over 5 requests');
    expect(markdown).toContain('No requests from `b`, `c`: their reports prove nothing.');
    expect(markdown).not.toContain('### ✅ `b`');
  });

  it('writes what partners sent as text: no HTML, no table cell broken by `|`, no line break, code spans that hold backticks', () => {
    const run: RunReports = {
      clients: [
        client('we`ird|id', [finding('wrong_path', 'error', 'GET /v1/<img src=x onerror=alert(1)>|x\n## injected')]),
      ],
    };
    const markdown = renderSummary(run, context);
    expect(markdown).toContain('| GET /v1/&lt;img src=x onerror=alert(1)&gt;\\|x ## injected |');
    expect(markdown).toContain('### ❌ ``we`ird\\|id``: 1 finding over 5 requests');
    expect(markdown).not.toContain('<img');
    expect(text('a & b')).toBe('a &amp; b');
    expect(code('`x`')).toBe('`` `x` ``');
  });

  it("lists shadow mode's differences of each client by operation, and the counts per operation", () => {
    const difference = (operation: string | null, heading: string): Schemas['FidelityDifference'] => ({
      request_id: '9',
      operation,
      method: 'GET',
      path: '/v1/orders',
      kind: 'enum_value',
      pointer: '/data/*/status',
      upstream: 'SETTLED',
      fake: 'PLACED',
      heading,
    });
    const differences = [difference('listOrders', 'one'), difference('listOrders', 'two'), difference(null, 'three')];
    const report: Schemas['FidelityReport'] = {
      upstream: 'https://sandbox.example',
      exchanges: 4,
      compared: 3,
      agreed: 1,
      not_comparable: 1,
      differences,
      document_violations: [],
      not_comparable_exchanges: [],
      operations: [
        { operation: 'listOrders', exchanges: 3, compared: 3, agreed: 1, not_comparable: 0, differences: 2 },
      ],
    };
    const run: RunReports = {
      clients: [client('acme', [], 4, { differences })],
      fidelity: { report, files: ['fidelity.json'], unattributed: [] },
    };
    const markdown = renderSummary(run, { ...context, failOnFindings: true });
    expect(markdown).toContain('**❌ 3 differences from the upstream** for 1 of 1 client. The step fails');
    expect(markdown).toContain('### ❌ `acme`: 3 differences over 4 requests');
    expect(markdown).toContain(
      '- `listOrders` (2)\n  - `GET /v1/orders`: one\n  - `GET /v1/orders`: two\n- `(a path the document does not have)` (1)\n  - `GET /v1/orders`: three',
    );
    expect(markdown).toContain(
      'The fake against `https://sandbox.example`: 4 exchanges, 3 compared, 1 agreed, 1 not comparable; 3 differences.',
    );
    expect(markdown).toContain('| `listOrders` | 3 | 3 | 1 | 0 | 2 |');
  });

  it('shows the first 50 findings of a client and says how many more its files hold', () => {
    const many = Array.from({ length: 53 }, (_, i) => finding('repeated_client_error', 'error', `request ${i}`));
    const markdown = renderSummary({ clients: [client('acme', many)] }, context);
    expect(markdown.split('\n').filter((l) => l.startsWith('| ['))).toHaveLength(50);
    expect(markdown).toContain('…and 3 findings more in the files.');
  });

  it('says what could not be read', () => {
    const markdown = renderSummary(
      { clients: [], problem: "The fake's clients could not be read: control plane answered 401" },
      { ...context, failOnFindings: true },
    );
    expect(markdown).toContain('**⚠️ The reports could not be read.** The step fails');
    expect(markdown).toContain("> The fake's clients could not be read: control plane answered 401");
  });
});

describe("the reports' file names", () => {
  it("keep letters, digits, dots, dashes and underscores of a client id, and never two the same or one of the run's own", () => {
    const stems = fileStems(['acme', '../etc/passwd', 'a b', 'a_b', 'fidelity', 'ACME', '']);
    expect([...stems.values()]).toEqual(['acme', '__etc_passwd', 'a_b', 'a_b-2', 'fidelity-2', 'ACME-2', '_']);
  });
});
