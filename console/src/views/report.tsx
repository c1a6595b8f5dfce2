import { useApp } from '../app.js';
import { Link } from '../components.js';

export function Report() {
  const app = useApp();
  const findings = app.report?.findings;
  return (
    <>
      <h1>Readiness report of {app.clientId}</h1>
      <p>What the client does that would hurt in production, read from its requests.</p>
      {findings === undefined ? (
        <p>Loading…</p>
      ) : findings.length === 0 ? (
        <p>No finding: nothing this client did would hurt in production.</p>
      ) : (
        <ul class="findings">
          {findings.map((f) => (
            <li key={f.code} class="card">
              <h2>
                <code>{f.code}</code>
              </h2>
              <p>{f.message}</p>
              <p>
                <Link to={`requests?ids=${f.requests.join(',')}`}>
                  The {f.requests.length} request(s) behind it: {f.requests.slice(0, 12).join(', ')}
                  {f.requests.length > 12 ? '…' : ''}
                </Link>
              </p>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
