import type { Schemas } from '../api/types.js';

/**
 * Short texts an agent reads beside a tool's structured result: an order with its history in a few lines, the
 * readiness findings with their hints, a failed verification with its near misses. Only presentation: every value
 * comes from the control plane's answer as it is.
 */

const MAX_LINES = 40;

/** At most `MAX_LINES` lines, the newest (last) ones kept, and how many were left out. */
function lastLines(lines: string[], what: string): string[] {
  if (lines.length <= MAX_LINES) return lines;
  return [
    `… ${lines.length - MAX_LINES} earlier ${what} left out (structuredContent has them all)`,
    ...lines.slice(-MAX_LINES),
  ];
}

const json = (value: unknown): string => {
  const text = JSON.stringify(value);
  return text === undefined ? 'undefined' : text.length > 200 ? `${text.slice(0, 200)}…` : text;
};

export function orderLine(order: Schemas['OrderDetails']): string {
  return `Order ${order.id}: ${order.side} ${order.amount_of_units} unit(s) of ${order.isin} on the ${order.market} market for ${order.value} (${order.currency} cents), account ${order.account_id}, status ${order.status}, created ${order.created}`;
}

export function controlOrderText(view: Schemas['ControlOrder']): string {
  const lines = [orderLine(view.order), 'History:'];
  for (const entry of view.status_history) lines.push(`  ${entry.at}  ${entry.status} (by ${entry.by})`);
  const next = view.next_step;
  lines.push(
    next
      ? `Next step: ${next.status} at ${next.at} (by ${next.by})`
      : 'Next step: none by itself (a final status, or progression is not `clock`)',
  );
  return lines.join('\n');
}

export function orderListText(list: Schemas['ControlOrderList']): string {
  const lines = list.data.map(
    ({ order, next_step }) =>
      `${order.id}  ${order.side} ${order.isin} ${order.status}${next_step ? ` → ${next_step.status} at ${next_step.at}` : ''}`,
  );
  const shown =
    list.data.length === list.total
      ? `${list.total} order(s)`
      : `${list.data.length} of ${list.total} matching order(s) (skip and limit page through them)`;
  return [`${shown}; clock ${clockText(list.clock)}`, ...lastLines(lines, 'orders')].join('\n');
}

export const clockText = (clock: Schemas['Clock']): string => `${clock.now} (${clock.frozen ? 'frozen' : 'running'})`;

export function clientsText(list: Schemas['ClientList']): string {
  return list.data
    .map(
      (c) =>
        `${c.client_id}${c.default ? ' (default)' : ''}: ${c.token_endpoint_auth_method}, scopes ${c.scopes.join(' ') || 'none'}, settings ${json(c.settings)}`,
    )
    .join('\n');
}

export const clientText = (client: Schemas['Client']): string =>
  `${client.client_id}: ${client.token_endpoint_auth_method}, scopes ${client.scopes.join(' ') || 'none'}, settings ${json(client.settings)}`;

export function faultText(fault: Schemas['Fault']): string {
  const effect = [
    fault.status !== null && `status ${fault.status}`,
    fault.latency_ms !== null && `delay ${fault.latency_ms} ms`,
    fault.drop && 'dropped connection',
  ]
    .filter(Boolean)
    .join(', ');
  const times = fault.remaining === null ? 'every time' : `${fault.remaining} more time(s)`;
  return `${fault.id}: ${fault.method ?? 'any method'} ${fault.path ?? 'any path'} → ${effect} (${fault.phase}), ${times}, probability ${fault.probability}`;
}

export const faultsText = (list: Schemas['FaultList']): string =>
  list.data.length === 0
    ? 'No active faults.'
    : [`${list.data.length} active fault(s), the oldest matching one fires:`, ...list.data.map(faultText)].join('\n');

function entryLine(entry: Schemas['JournalEntry']): string {
  const query = Object.entries(entry.query);
  const target = query.length > 0 ? `${entry.path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}` : entry.path;
  const notes = [
    entry.code,
    entry.fault_id && `fault ${entry.fault_id}`,
    entry.applied && entry.status >= 400 ? 'applied' : undefined,
    entry.status === 0 && entry.applied ? 'applied' : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return `${entry.id}  ${entry.time}  ${entry.client_id ?? '-'}  ${entry.method} ${target} → ${entry.status}${notes ? ` (${notes})` : ''}`;
}

export function requestsText(list: Schemas['JournalEntryList']): string {
  if (list.data.length === 0) return 'No journaled requests match.';
  return [`${list.data.length} request(s), oldest first:`, ...lastLines(list.data.map(entryLine), 'requests')].join(
    '\n',
  );
}

export function reportText(report: Schemas['ReadinessReport']): string {
  if (report.requests_seen === 0)
    return `Readiness of ${report.client_id}: no requests yet — the report proves nothing until the client has made some.`;
  if (report.findings.length === 0)
    return `Readiness of ${report.client_id}: nothing would hurt in production (${report.requests_seen} request(s) read).`;
  const lines = [
    `Readiness of ${report.client_id}: ${report.findings.length} finding(s) over ${report.requests_seen} request(s).`,
  ];
  for (const finding of report.findings) {
    lines.push(`- [${finding.severity}] ${finding.code}: ${finding.message}`);
    lines.push(`  hint: ${finding.hint}`);
    lines.push(
      `  docs: ${finding.docs}; requests: ${finding.requests.slice(0, 10).join(', ')}${finding.requests.length > 10 ? ', …' : ''}`,
    );
  }
  return lines.join('\n');
}

export const verifiedText = (result: Schemas['VerificationResult']): string =>
  `Verified: ${result.matched} matching request(s)${result.requests.length > 0 ? `: ${result.requests.join(', ')}` : ''}.`;

/** A refusal: its code and detail, the fields it names, and a failed verification's near misses. */
export function refusalText(problem: Schemas['Problem'] & Record<string, unknown>): string {
  const lines = [`${problem.code} (${problem.status}): ${problem.detail}`];
  for (const error of problem.errors ?? [])
    lines.push(`- ${error.location} ${error.path}: ${error.message}${error.code ? ` (${error.code})` : ''}`);
  const nearMisses = problem.near_misses as Schemas['NearMiss'][] | undefined;
  if (Array.isArray(nearMisses)) {
    lines.push(
      nearMisses.length === 0
        ? 'Near misses: none (the tenant has no other requests).'
        : 'Near misses (closest first):',
    );
    for (const miss of nearMisses) {
      lines.push(`- ${entryLine(miss.request)}`);
      for (const difference of miss.differences)
        lines.push(`    ${difference.field}: expected ${json(difference.expected)}, was ${json(difference.actual)}`);
    }
  }
  return lines.join('\n');
}

export const worldCounts = (world: Record<string, unknown>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(world).flatMap(([name, value]) => (Array.isArray(value) ? [[name, value.length]] : [])),
  );

export const countsText = (counts: Record<string, number>): string =>
  Object.entries(counts)
    .map(([name, count]) => `${count} ${name}`)
    .join(', ');
