import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { ControlError } from './api.js';
import { href } from './router.js';

/** Hands the browser a file to save (a snapshot, an export): a blob URL, never a request. */
export function saveFile(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  Object.assign(document.createElement('a'), { href: url, download: fileName }).click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** A failure as the fake said it: status, title, detail, code and every field it names. Text only. */
export function ProblemView({ error }: { error: unknown }) {
  if (!error) return null;
  if (!(error instanceof ControlError))
    return (
      <p role="alert" class="problem">
        {String((error as Error)?.message ?? error)}
      </p>
    );
  const p = error.problem;
  return (
    <div role="alert" class="problem">
      <p>
        <strong>
          {error.status} {p?.title ?? 'Error'}
        </strong>
        {p?.code && (
          <>
            {' '}
            <code>{p.code}</code>
          </>
        )}
      </p>
      {p?.detail && <p>{p.detail}</p>}
      {p?.errors && p.errors.length > 0 && (
        <ul>
          {p.errors.map((e, i) => (
            <li key={i}>
              <code>{e.path || '/'}</code> ({e.location}): {e.message}
              {e.code && (
                <>
                  {' '}
                  <code>{e.code}</code>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export const Link = ({
  to,
  children,
  ...rest
}: {
  to: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) => (
  <a href={href(to)} {...rest}>
    {children}
  </a>
);

export function Copyable({ label, text }: { label: string; text: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  };
  return (
    <figure class="copyable">
      <figcaption>
        {label}{' '}
        <button type="button" class="small" onClick={copy} aria-label={`Copy: ${label}`}>
          {copied ? 'Copied' : 'Copy'}
        </button>
      </figcaption>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region takes the focus so a keyboard scrolls it (axe) */}
      <pre tabIndex={0}>
        <code>{text}</code>
      </pre>
    </figure>
  );
}

/** A value of a record, as text: absent and null shown as a dash. */
export const show = (value: unknown): string =>
  value === undefined || value === null || value === ''
    ? '—'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A record's fields, name and value. A nested record (payment method details, an address) is laid out as fields of
 * its own on a full row, a list of records one after the other: never as JSON wrapped letter by letter.
 */
export function Fields({ record, keys, nested = false }: { record: object; keys?: string[]; nested?: boolean }) {
  const entries = (keys ?? Object.keys(record)).map((k) => [k, (record as Record<string, unknown>)[k]] as const);
  return (
    <dl class={nested ? 'fields nested' : 'fields'}>
      {entries.map(([k, v]) =>
        isRecord(v) || (Array.isArray(v) && v.some(isRecord)) ? (
          <div key={k} class="group" data-field={k}>
            <dt>{k}</dt>
            <dd>
              {Array.isArray(v) ? (
                v.map((item, i) =>
                  isRecord(item) ? <Fields key={i} record={item} nested /> : <p key={i}>{show(item)}</p>,
                )
              ) : (
                <Fields record={v as object} nested />
              )}
            </dd>
          </div>
        ) : (
          <div key={k} data-field={k}>
            <dt>{k}</dt>
            <dd>{Array.isArray(v) ? (v.length === 0 ? '—' : v.map(show).join(', ')) : show(v)}</dd>
          </div>
        ),
      )}
    </dl>
  );
}

export const money = (value: number, currency: string): string => {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).format(value / 100);
  } catch {
    return `${(value / 100).toFixed(2)} ${currency}`;
  }
};

export const statusClass = (status: number): string =>
  status === 0 ? 'dropped' : status < 300 ? 's2xx' : status < 400 ? 's3xx' : status < 500 ? 's4xx' : 's5xx';

export const accountName = (a: {
  first_name?: string;
  last_name?: string;
  business_name?: string;
  id: string;
}): string => a.business_name ?? ([a.first_name, a.last_name].filter(Boolean).join(' ') || a.id);

export function Badge({ on, children }: { on: boolean; children: ComponentChildren }) {
  return <span class={on ? 'badge on' : 'badge off'}>{on ? children : <>not {children}</>}</span>;
}

/**
 * A table: its column headings (`false` or nothing: a column left out), one row per item, and an optional caption. Rows
 * are the views' own `<tr>`s, with their keys.
 */
export function Table<T>({
  headings,
  rows,
  row,
  caption,
  ...attributes
}: {
  headings: readonly ComponentChildren[];
  rows: readonly T[];
  row: (item: T, index: number) => ComponentChildren;
  caption?: ComponentChildren;
  class?: string;
  'data-testid'?: string;
}) {
  return (
    <table {...attributes}>
      {caption !== undefined && <caption>{caption}</caption>}
      <thead>
        <tr>
          {headings.map((heading, i) =>
            heading === false || heading == null ? null : (
              <th key={i} scope="col">
                {heading}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{rows.map(row)}</tbody>
    </table>
  );
}
