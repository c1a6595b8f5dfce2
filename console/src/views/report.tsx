import { useApp } from '../app.js';
import type { ReadinessFinding } from '../api.js';
import { Link } from '../components.js';

// `docs` names a section of the docs (`docs/readiness.md#over_polling`); the console links to it where the package lives.
const README = 'https://github.com/investment-platform/investment-api-fake/blob/main/';

function Finding({ finding }: { finding: ReadinessFinding }) {
  return (
    <li class={`card finding ${finding.severity}`}>
      <h2>
        <span class={`severity ${finding.severity}`}>{finding.severity}</span> <code>{finding.code}</code>
      </h2>
      <p>{finding.message}</p>
      <p class="hint">
        <strong>What to change:</strong> {finding.hint}
      </p>
      <p>
        Requests behind it:{' '}
        {finding.requests.slice(0, 20).map((id, i) => (
          <span key={id}>
            {i > 0 && ', '}
            <Link to={`requests?ids=${id}`}>{id}</Link>
          </span>
        ))}
        {finding.requests.length > 20 && '…'} (
        <Link to={`requests?ids=${finding.requests.join(',')}`}>show all {finding.requests.length}</Link>) ·{' '}
        <a href={`${README}${finding.docs}`} target="_blank" rel="noreferrer">
          about this rule
        </a>
      </p>
    </li>
  );
}

export function Report() {
  const app = useApp();
  const report = app.report;
  const errors = report?.findings.filter((f) => f.severity === 'error').length ?? 0;
  return (
    <>
      <h1>Readiness report of {app.clientId}</h1>
      <p>
        What the client does that would hurt in production, read from its requests (those whose token verified) in its
        whole journal, across resets
        {report?.resets ? ` (${report.resets} reset(s) among them)` : ''}.
      </p>
      {report === undefined ? (
        <p>Loading…</p>
      ) : report.requests_seen === 0 ? (
        <p class="empty-report">
          No requests yet: the report judges what the client sends, and it has sent nothing with a valid token.
        </p>
      ) : report.findings.length === 0 ? (
        <p>No finding in {report.requests_seen} request(s): nothing this client did would hurt in production.</p>
      ) : (
        <>
          <p aria-live="polite">
            {report.findings.length} finding(s) in {report.requests_seen} request(s): {errors} error(s),{' '}
            {report.findings.length - errors} warning(s).
          </p>
          <ul class="findings">
            {report.findings.map((f, i) => (
              <Finding key={`${f.code}-${i}`} finding={f} />
            ))}
          </ul>
        </>
      )}
    </>
  );
}
