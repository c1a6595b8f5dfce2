/**
 * The job summary of a run, as Markdown: per client its readiness findings (rule, severity, what it did, what to
 * change) and, in shadow mode, its differences from the upstream by operation, each with the names of its files.
 * Text from the fake (which carries paths the partner sent) is written as text: HTML escaped, `|` and line breaks
 * neutralised, code spans fenced longer than any backtick run inside them.
 */
import type { Schemas } from '../../src/api/types.js';
import type { ClientReports, RunReports } from './reports.js';

/** A summary is at most 1 MiB: past these, a list says how many more its files hold. */
const MAX_ROWS = 50;

export interface SummaryContext {
  reportsDir: string;
  failOnFindings: boolean;
  /** Where the rules' docs are: `docs/readiness.md#<rule>` of a finding is read from here. */
  docsBase: string;
}

/** Readiness findings and shadow mode's differences, all clients together. */
export const findingsOf = (run: RunReports): { findings: number; differences: number } => ({
  findings: run.clients.reduce((n, c) => n + (c.readiness?.findings.length ?? 0), 0),
  differences: run.fidelity?.report?.differences.length ?? 0,
});

export function renderSummary(run: RunReports, context: SummaryContext): string {
  const lines: string[] = ['## investment-api-fake: the API readiness of this run', ''];
  lines.push(verdict(run, context), '');
  if (run.problem) lines.push(`> [!WARNING]`, `> ${text(run.problem)}`, '');
  const silent: ClientReports[] = [];
  for (const client of run.clients) {
    const quiet = client.readiness?.requests_seen === 0 && client.differences.length === 0 && !client.problem;
    if (quiet) silent.push(client);
    else lines.push(...clientSection(client, context));
  }
  if (silent.length > 0)
    lines.push(
      `No requests from ${silent.map((c) => code(c.clientId)).join(', ')}: ${silent.length === 1 ? 'its report proves' : 'their reports prove'} nothing.`,
      '',
    );
  if (run.fidelity) lines.push(...fidelitySection(run.fidelity));
  lines.push(
    '---',
    '',
    `The files are in the folder the step's \`reports-dir\` output names (${code(context.reportsDir)}), with the fake's log (\`fake.log\`): keep them with \`actions/upload-artifact\`.`,
    '',
  );
  return lines.join('\n');
}

function verdict(run: RunReports, { failOnFindings }: SummaryContext): string {
  const { findings, differences } = findingsOf(run);
  const clients = run.clients.length;
  const failing = run.clients.filter((c) => (c.readiness?.findings.length ?? 0) + c.differences.length > 0).length;
  const requests = run.clients.reduce((n, c) => n + (c.readiness?.requests_seen ?? 0), 0);
  const fails = failOnFindings ? ' The step fails: `fail-on-findings` is `true`.' : '';
  if (findings + differences === 0) {
    if (run.problem)
      return `**⚠️ The reports could not be read.**${failOnFindings ? ' The step fails: `fail-on-findings` is `true`.' : ''}`;
    return `**✅ No findings** over ${count(requests, 'request')} of ${count(clients, 'client')}${run.fidelity ? ', and no difference from the upstream' : ''}.`;
  }
  const errors = run.clients.reduce(
    (n, c) => n + (c.readiness?.findings.filter((f) => f.severity === 'error').length ?? 0),
    0,
  );
  const parts = [];
  const severities = [
    errors > 0 ? count(errors, 'error') : '',
    findings > errors ? count(findings - errors, 'warning') : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (findings > 0) parts.push(`${count(findings, 'finding')} (${severities})`);
  if (differences > 0) parts.push(`${count(differences, 'difference')} from the upstream`);
  return `**❌ ${parts.join(' and ')}** for ${failing} of ${count(clients, 'client')}.${fails}`;
}

function clientSection(client: ClientReports, { docsBase }: SummaryContext): string[] {
  const findings = client.readiness?.findings ?? [];
  const bad = findings.length + client.differences.length > 0 || client.problem !== undefined;
  const seen = client.readiness ? ` over ${count(client.readiness.requests_seen, 'request')}` : '';
  const what: string[] = [];
  if (findings.length > 0) what.push(count(findings.length, 'finding'));
  if (client.differences.length > 0) what.push(count(client.differences.length, 'difference'));
  const lines = [
    `### ${bad ? '❌' : '✅'} ${code(client.clientId)}: ${what.length > 0 ? what.join(', ') : 'no findings'}${seen}`,
    '',
  ];
  if (client.problem) lines.push(`> [!WARNING]`, `> ${text(client.problem)}`, '');
  if (findings.length > 0) {
    lines.push('| rule | severity | what the client did | what to change |', '| --- | --- | --- | --- |');
    const ordered = [...findings].sort(
      (a, b) => Number(a.severity !== 'error') - Number(b.severity !== 'error') || a.code.localeCompare(b.code),
    );
    for (const f of ordered.slice(0, MAX_ROWS))
      lines.push(`| [${code(f.code)}](${docsBase}${f.docs}) | ${f.severity} | ${text(f.message)} | ${text(f.hint)} |`);
    lines.push(...more(ordered.length, 'finding'), '');
  }
  if (client.differences.length > 0)
    lines.push('Differences from the upstream, by operation:', '', ...differencesByOperation(client.differences), '');
  if (client.files.length > 0) lines.push(`Files: ${client.files.map(code).join(', ')}`, '');
  return lines;
}

function differencesByOperation(differences: readonly Schemas['FidelityDifference'][]): string[] {
  const byOperation = new Map<string, Schemas['FidelityDifference'][]>();
  for (const d of differences) {
    const key = d.operation ?? '(a path the document does not have)';
    byOperation.set(key, [...(byOperation.get(key) ?? []), d]);
  }
  const lines: string[] = [];
  let shown = 0;
  for (const [operation, list] of byOperation) {
    lines.push(`- ${code(operation)} (${list.length})`);
    for (const d of list) {
      if (shown++ >= MAX_ROWS) break;
      lines.push(`  - ${code(`${d.method} ${d.path}`)}: ${text(d.heading)}`);
    }
  }
  return [...lines, ...more(differences.length, 'difference')];
}

function fidelitySection(fidelity: NonNullable<RunReports['fidelity']>): string[] {
  const lines = ['### Shadow mode', ''];
  if (fidelity.problem) lines.push(`> [!WARNING]`, `> ${text(fidelity.problem)}`, '');
  const report = fidelity.report;
  if (report) {
    lines.push(
      `The fake against ${code(report.upstream)}: ${count(report.exchanges, 'exchange')}, ${report.compared} compared, ${report.agreed} agreed, ${report.not_comparable} not comparable; ${count(report.differences.length, 'difference')}.` +
        (report.exchanges === 0 ? ' A report over no exchange proves nothing.' : ''),
      '',
    );
    if (report.operations.length > 0) {
      lines.push(
        '| operation | exchanges | compared | agreed | not comparable | differences |',
        '| --- | --- | --- | --- | --- | --- |',
      );
      for (const o of report.operations.slice(0, MAX_ROWS))
        lines.push(
          `| ${code(o.operation ?? '(not in the document)')} | ${o.exchanges} | ${o.compared} | ${o.agreed} | ${o.not_comparable} | ${o.differences} |`,
        );
      lines.push(...more(report.operations.length, 'operation'), '');
    }
  }
  if (fidelity.unattributed.length > 0)
    lines.push(
      "Differences whose exchange no client's journal still holds, by operation:",
      '',
      ...differencesByOperation(fidelity.unattributed),
      '',
    );
  if (fidelity.files.length > 0) lines.push(`Files: ${fidelity.files.map(code).join(', ')}`, '');
  return lines;
}

const more = (total: number, noun: string): string[] =>
  total > MAX_ROWS ? ['', `…and ${count(total - MAX_ROWS, noun)} more in the files.`] : [];

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Text in a paragraph or a table cell: no HTML, no cell break, one line. */
export const text = (value: string): string =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/\|/g, '\\|')
    .replace(/[\r\n\u2028\u2029]+/g, ' ');

/** An inline code span of any text: fenced by more backticks than it holds in a row, `|` escaped for tables. */
export function code(value: string): string {
  const one = value.replace(/[\r\n\u2028\u2029]+/g, ' ').replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...one.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = one.startsWith('`') || one.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${one}${pad}${fence}`;
}
