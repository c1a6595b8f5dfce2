import { useState } from 'preact/hooks';
import type { JournalEntry } from '../api.js';
import { useApp } from '../app.js';
import { ProblemView, saveFile, statusClass, Table } from '../components.js';
import { Exchange } from './exchange.js';
import { navigate, type Route } from '../router.js';

const CLASSES: [string, string, (s: number) => boolean][] = [
  ['', 'every status', () => true],
  ['2xx', '2xx success', (s) => s >= 200 && s < 300],
  ['4xx', '4xx client error', (s) => s >= 400 && s < 500],
  ['5xx', '5xx server error', (s) => s >= 500],
  ['dropped', 'dropped connection', (s) => s === 0],
];

const time = (iso: string) => iso.slice(11, 23);

/** The operation was applied although the client never got its success answer. */
const lostAfterWrite = (e: JournalEntry) => e.applied && (e.status < 200 || e.status >= 300);

/** What `applied` says of a request, in words: whether its operation ran to success, and so changed what it writes. */
function appliedText(e: JournalEntry): string {
  if (e.applied)
    return lostAfterWrite(e)
      ? 'yes, although the answer was lost: the operation ran and succeeded'
      : 'yes: the operation ran and succeeded';
  if (e.fault_id) return 'no: an injected fault answered before the operation ran, so nothing changed';
  if (e.status === 0) return 'no: no answer reached the client and the operation did not succeed, so nothing changed';
  if (e.status < 400) return 'no: no operation ran, so nothing changed';
  return `no: refused (${e.status}${e.code ? ` ${e.code}` : ''}), so nothing changed`;
}

/** The path as the client sent it, its query included (`k=v&k=v`, secret values as the journal redacted them). */
const pathWithQuery = (entry: JournalEntry): string => {
  const query = Object.entries(entry.query);
  return query.length === 0 ? entry.path : `${entry.path}?${query.map(([k, v]) => `${k}=${v}`).join('&')}`;
};

/** A click that selected text (a path being copied) opens nothing. */
const selectingText = (): boolean => (globalThis.getSelection?.()?.toString() ?? '') !== '';

function Row({ entry, open: initiallyOpen }: { entry: JournalEntry; open: boolean }) {
  const [open, setOpen] = useState(initiallyOpen);
  const query = Object.entries(entry.query);
  const fullPath = pathWithQuery(entry);
  // a click anywhere in the row opens it, the button's own (Enter and Space on it included) bubbling here once
  const toggle = () => {
    if (!selectingText()) setOpen(!open);
  };
  return (
    <>
      <tr class={open ? 'open clickable' : 'clickable'} onClick={toggle}>
        <td>
          <button type="button" class="small" aria-expanded={open} aria-label={`Details of request ${entry.id}`}>
            {open ? '−' : '+'}
          </button>
        </td>
        <td>{entry.id}</td>
        <td>{time(entry.time)}</td>
        <td>{entry.method}</td>
        <td class="path" title={fullPath}>
          {fullPath}
        </td>
        <td>
          <span class={`status ${statusClass(entry.status)}`}>{entry.status === 0 ? 'dropped' : entry.status}</span>
        </td>
        <td class="code">
          {entry.code && (
            <span class="code-text" title={entry.code}>
              {entry.code}
            </span>
          )}
          {lostAfterWrite(entry) && (
            <span class="badge on" title="The operation was applied; its answer never reached the client">
              write applied
            </span>
          )}
        </td>
        <td class="client" title={entry.client_id ?? undefined}>
          {entry.client_id ?? '—'}
        </td>
        <td class="num">{entry.duration_ms} ms</td>
      </tr>
      {open && (
        <tr class="details">
          <td colSpan={9}>
            <dl class="fields">
              <div>
                <dt>query</dt>
                <dd>{query.length > 0 ? query.map(([k, v]) => `${k}=${v}`).join('&') : '—'}</dd>
              </div>
              <div>
                <dt>status</dt>
                <dd>{entry.status === 0 ? '0 (connection dropped)' : entry.status}</dd>
              </div>
              <div>
                <dt>problem code</dt>
                <dd>{entry.code ?? '—'}</dd>
              </div>
              <div>
                <dt>duration</dt>
                <dd>{entry.duration_ms} ms</dd>
              </div>
              <div>
                <dt>operation</dt>
                <dd>{entry.operation_id ?? '—'}</dd>
              </div>
              <div>
                <dt>fault</dt>
                <dd>{entry.fault_id ?? '—'}</dd>
              </div>
              <div>
                <dt>applied</dt>
                <dd>{appliedText(entry)}</dd>
              </div>
              <div>
                <dt>time</dt>
                <dd>{entry.time}</dd>
              </div>
            </dl>
            <Exchange entry={entry} />
          </td>
        </tr>
      )}
    </>
  );
}

export function RequestTable({ entries, opened = [] }: { entries: JournalEntry[]; opened?: string[] }) {
  return (
    <Table
      class="requests"
      headings={[
        <span class="visually-hidden">Details</span>,
        '#',
        'Time (UTC)',
        'Method',
        'Path',
        'Status',
        'Code',
        'Client',
        'Duration',
      ]}
      rows={entries}
      row={(e) => <Row key={e.id} entry={e} open={opened.includes(e.id)} />}
    />
  );
}

/** The tenant's session as a file: HAR for HAR viewers and dev tools, `.http` for the REST clients of editors. */
function ExportLinks() {
  const app = useApp();
  const [error, setError] = useState<unknown>();
  const save = async (format: 'har' | 'http' | 'vitest') => {
    try {
      setError(undefined);
      const { blob, fileName } = await app.api.exportRequests(format);
      saveFile(blob, fileName);
      app.notify(`${fileName} downloaded.`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div class="row actions">
      <span>Export this client's whole journal, each reset marked (credentials redacted):</span>
      <button type="button" class="small" onClick={() => save('har')}>
        HAR (dev tools, HAR viewers)
      </button>
      <button type="button" class="small" onClick={() => save('http')}>
        .http (VS Code, JetBrains)
      </button>
      <button
        type="button"
        class="small"
        onClick={() => save('vitest')}
        title="The session since the last reset, replayed as a test: attach it to a bug report"
      >
        export as vitest test
      </button>
      <ProblemView error={error} />
    </div>
  );
}

/** The journal, newest first, read every second; filters live in the address so a view can be bookmarked. */
export function Requests({ route }: { route: Route }) {
  const app = useApp();
  const q = route.query;
  const statusFilter = q.get('status') ?? '';
  const pathFilter = q.get('path') ?? '';
  const everyClient = q.get('clients') === 'all';
  const ids = q.get('ids')?.split(',').filter(Boolean) ?? [];
  const set = (key: string, value: string) => {
    const next = new URLSearchParams(q);
    if (value) next.set(key, value);
    else next.delete(key);
    navigate(`requests${next.size > 0 ? `?${next}` : ''}`, { replace: true });
  };
  const test = CLASSES.find(([k]) => k === statusFilter)?.[2] ?? (() => true);
  const entries = (app.journal ?? []).filter(
    (e) =>
      (everyClient || e.client_id === app.clientId) &&
      test(e.status) &&
      (pathFilter === '' || e.path.includes(pathFilter)) &&
      (ids.length === 0 || ids.includes(e.id)),
  );
  return (
    <>
      <h1>Requests</h1>
      <p>
        The partner's calls as the fake saw them, newest first, <span class="live">live</span> (read every second): the
        tenant's whole journal, resets included, as the exports below and the readiness report cover it (every client:
        the newest since their resets). The control plane and the docs are not journaled.
      </p>
      <ExportLinks />
      <form class="filters row" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status{' '}
          <select value={statusFilter} onChange={(e) => set('status', (e.target as HTMLSelectElement).value)}>
            {CLASSES.map(([k, label]) => (
              <option key={k} value={k}>
                {label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Path contains{' '}
          <input type="search" value={pathFilter} onInput={(e) => set('path', (e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <input
            type="checkbox"
            checked={everyClient}
            onChange={(e) => set('clients', (e.target as HTMLInputElement).checked ? 'all' : '')}
          />{' '}
          Every client (also requests without a known client)
        </label>
        {ids.length > 0 && (
          <button type="button" class="small" onClick={() => set('ids', '')}>
            Show all, not only requests {ids.join(', ')}
          </button>
        )}
      </form>
      <p aria-live="polite" class="muted">
        {entries.length} request(s) shown
      </p>
      {entries.length > 0 && <RequestTable entries={entries} opened={ids} />}
    </>
  );
}
