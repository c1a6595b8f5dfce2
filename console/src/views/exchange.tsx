import { useEffect, useState } from 'preact/hooks';
import type { JournalEntry, Problem, Schemas } from '../api.js';
import { useApp } from '../app.js';
import { ProblemView, Table } from '../components.js';

type Body = Schemas['ExchangeBody'];

/** A body longer than this (characters, or lines once laid out) is folded: opened on a click, not at once. */
const FOLD_CHARS = 1500;
const FOLD_LINES = 30;

/** JSON laid out with indentation; any other text (a form, a cut JSON) as it came. */
function laidOut(body: NonNullable<Body>): string {
  if (body.text === null || body.truncated || !/json/i.test(body.content_type ?? '')) return body.text ?? '';
  try {
    return JSON.stringify(JSON.parse(body.text), null, 2);
  } catch {
    return body.text;
  }
}

function BodyView({ label, body }: { label: string; body: Body }) {
  if (body === null) {
    return (
      <section class="exchange-body" aria-label={label}>
        <h3>{label}</h3>
        <p class="muted">No body.</p>
      </section>
    );
  }
  const about = [
    body.content_type ?? 'no content type',
    `${body.size.toLocaleString('en')} bytes`,
    body.truncated && 'cut at 8 KiB by the journal',
  ]
    .filter(Boolean)
    .join(' · ');
  if (body.text === null) {
    return (
      <section class="exchange-body" aria-label={label}>
        <h3>{label}</h3>
        <p class="muted">{about}: binary, kept by its size only.</p>
      </section>
    );
  }
  const text = laidOut(body);
  const pre = (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region takes the focus so a keyboard scrolls it (axe)
    <pre tabIndex={0} data-testid={`${label.toLowerCase().replace(/\W+/g, '-')}-text`}>
      <code>{text}</code>
    </pre>
  );
  const folded = text.length > FOLD_CHARS || text.split('\n').length > FOLD_LINES;
  return (
    <section class="exchange-body" aria-label={label}>
      <h3>{label}</h3>
      <p class="muted">{about}</p>
      {folded ? (
        <details>
          <summary>Show the whole body ({text.split('\n').length.toLocaleString('en')} lines)</summary>
          {pre}
        </details>
      ) : (
        pre
      )}
    </section>
  );
}

/** The problem a 4xx answered, when its body is one the journal kept whole. */
function problemOf(entry: JournalEntry, body: Body): Problem | undefined {
  if (entry.status < 400 || entry.status >= 500 || !body?.text || body.truncated) return undefined;
  try {
    const value = JSON.parse(body.text) as Problem;
    return typeof value === 'object' && value !== null && Array.isArray(value.errors) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A 4xx's field errors, one row per field (in the order of their place in the request), as the fake named them. */
function FieldErrors({ problem }: { problem: Problem }) {
  const errors = [...(problem.errors ?? [])].sort((a, b) =>
    `${a.location}${a.path}`.localeCompare(`${b.location}${b.path}`),
  );
  return (
    <Table
      class="field-errors"
      data-testid="field-errors"
      caption={
        <>
          Field errors of the answer ({errors.length}
          {problem.errors_omitted ? ` shown, ${problem.errors_omitted} more` : ''})
        </>
      }
      headings={['Field', 'In', 'What is wrong', 'Rule']}
      rows={errors}
      row={(e, i) => (
        <tr key={`${e.location}${e.path}-${i}`}>
          <th scope="row">
            <code>{e.path || '/'}</code>
          </th>
          <td>{e.location}</td>
          <td>{e.message}</td>
          <td>{e.code ? <code>{e.code}</code> : <span class="muted">schema</span>}</td>
        </tr>
      )}
    />
  );
}

/**
 * What a request sent and what came back, read when its row is opened (`GET /__control/requests/{id}`): bodies as
 * the journal keeps them, secrets redacted as in the exports, long ones folded; a 4xx's field errors by field.
 */
export function Exchange({ entry }: { entry: JournalEntry }) {
  const app = useApp();
  const [exchange, setExchange] = useState<Schemas['RequestExchange']>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    let current = true;
    app.api.requestExchange(entry.id).then(
      (found) => current && setExchange(found),
      (e: unknown) => current && setError(e),
    );
    return () => {
      current = false;
    };
    // the journal never changes what it kept of a request: one read per opened row
  }, [entry.id]);
  if (error) return <ProblemView error={error} />;
  if (!exchange) return <p class="muted">Reading the bodies…</p>;
  const problem = problemOf(entry, exchange.response);
  return (
    <div class="exchange" data-testid="exchange">
      {problem && <FieldErrors problem={problem} />}
      <div class="two">
        <BodyView label="Request body" body={exchange.request} />
        <BodyView label="Answer body" body={exchange.response} />
      </div>
    </div>
  );
}
