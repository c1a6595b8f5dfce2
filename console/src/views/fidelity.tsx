import { useEffect, useState } from 'preact/hooks';
import { ControlError, type Schemas } from '../api.js';
import { useApp } from '../app.js';
import { Link, ProblemView, Table } from '../components.js';

type Report = Schemas['FidelityReport'];
type Difference = Schemas['FidelityDifference'];

type ProblemSide = Difference['upstream_problem'];

// the view's own layout, kept here rather than in the shared stylesheet
const SIDE_BY_SIDE = { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: '0.75rem' };
const FIGURE = { margin: 0, minWidth: 0 };
const PROBLEM = { margin: '0.5rem 0 0', display: 'grid', gridTemplateColumns: 'auto 1fr', gap: '0.25rem 0.5rem' };
const BREAK = { overflowWrap: 'anywhere' as const, margin: 0 };

const json = (value: unknown): string =>
  value === null || value === undefined ? '(none)' : JSON.stringify(value, null, 2);

const percent = (part: number, whole: number): string => (whole === 0 ? '–' : `${Math.round((100 * part) / whole)} %`);

/** The report's heading as it is written (`shadow/headings.ts`): its backticked names as code. */
function Sentence({ text }: { text: string }) {
  return <>{text.split('`').map((part, i) => (i % 2 === 1 ? <code key={i}>{part}</code> : part))}</>;
}

/** One side's problem on a status or error-code difference: its code and detail (none: that side succeeded). */
function ProblemOf({ problem }: { problem: ProblemSide }) {
  if (problem === undefined) return null;
  if (problem === null) return <p class="problem-side">No problem: it succeeded.</p>;
  return (
    <dl class="problem-side" style={PROBLEM}>
      <dt>Code</dt>
      <dd style={BREAK}>{problem.code === null ? '(none)' : <code>{problem.code}</code>}</dd>
      <dt>Detail</dt>
      <dd style={BREAK}>{problem.detail ?? '(none)'}</dd>
    </dl>
  );
}

function DifferenceCard({ difference }: { difference: Difference }) {
  const problems = difference.upstream_problem !== undefined || difference.fake_problem !== undefined;
  return (
    <li class="card difference">
      <h3>
        <Sentence text={difference.heading} />
      </h3>
      <p>
        Request <Link to={`requests?ids=${difference.request_id}`}>{difference.request_id}</Link>:{' '}
        <code>
          {difference.method} {difference.path}
        </code>{' '}
        ({difference.operation ?? 'a path the document does not have'}; <code>{difference.kind}</code>
        {difference.pointer !== '' && (
          <>
            {' '}
            at <code>{difference.pointer}</code>
          </>
        )}
        )
      </p>
      <div class="side-by-side" style={SIDE_BY_SIDE}>
        <figure style={FIGURE}>
          <figcaption>Upstream (the real service)</figcaption>
          <pre>{json(difference.upstream)}</pre>
          {problems && <ProblemOf problem={difference.upstream_problem ?? null} />}
        </figure>
        <figure style={FIGURE}>
          <figcaption>The fake</figcaption>
          <pre>{json(difference.fake)}</pre>
          {problems && <ProblemOf problem={difference.fake_problem ?? null} />}
        </figure>
      </div>
    </li>
  );
}

/** Shadow mode's report: how far the fake agrees with the upstream, per operation, and each difference side by side. */
export function Fidelity() {
  const app = useApp();
  const [report, setReport] = useState<Report | undefined>();
  const [error, setError] = useState<unknown>();
  const [off, setOff] = useState(false);
  const inShadowMode = async (): Promise<boolean> => {
    try {
      return (await app.api.health()).shadow_mode === true;
    } catch {
      // a degraded health (503): the report itself says whether there is one
      return true;
    }
  };
  const load = async (): Promise<boolean> => {
    try {
      setReport(await app.api.fidelity());
      setError(undefined);
    } catch (e) {
      // outside shadow mode there is nothing to read again
      if (e instanceof ControlError && e.problem?.code === 'shadow_mode_off') {
        setOff(true);
        return false;
      }
      setError(e);
    }
    return true;
  };
  useEffect(() => {
    let timer: ReturnType<typeof setInterval> | undefined;
    let left = false;
    // health says whether the fake is in shadow mode: outside it the report is never asked for (it would answer 409)
    void inShadowMode()
      .then((on) => {
        if (!on) setOff(true);
        return on && !left && load();
      })
      .then((again) => {
        if (again && !left) timer = setInterval(() => void load(), 3000);
      });
    return () => {
      left = true;
      clearInterval(timer);
    };
  }, [app.api]);
  const clear = async () => {
    try {
      await app.api.clearFidelity();
      app.notify('Fidelity report cleared.');
      await load();
    } catch (e) {
      setError(e);
    }
  };
  if (off) {
    // the command restarts this very fake in shadow mode: its own port, and the origin this page came from
    const here = { origin: location.origin, port: location.port || (location.protocol === 'https:' ? '443' : '80') };
    return (
      <>
        <h1>Fidelity</h1>
        <div class="empty-report">
          <p>
            Shadow mode is off: this fake answers from its own world, so there is nothing to compare yet. Shadow mode
            puts the fake in front of a deployment of the real interface (the platform's sandbox), passes your client's
            requests on to it, and shows here where the two answer alike and where they differ.
          </p>
          <p>
            To turn it on, start the fake with <code>--upstream &lt;base URL&gt;</code> (or <code>UPSTREAM_URL</code> in
            its container):
          </p>
          <pre>npx investment-api-fake --port {here.port} --upstream https://sandbox.platform.example</pre>
          <p>
            Then send your client's traffic to {here.origin} and come back to this page. The shadow mode page of the
            docs (<code>docs/shadow-mode.md</code>) tries it against a second local fake.
          </p>
        </div>
      </>
    );
  }
  return (
    <>
      <h1>Fidelity</h1>
      <ProblemView error={error} />
      {report === undefined ? (
        <p>Loading…</p>
      ) : (
        <>
          <p>
            In front of <code>{report.upstream}</code>: {report.exchanges} exchange(s), {report.compared} compared,{' '}
            {report.agreed} agreed, {report.not_comparable} not comparable, {report.differences.length} difference(s).{' '}
            <button type="button" class="small" onClick={() => void clear()}>
              Clear
            </button>
          </p>
          {report.exchanges === 0 ? (
            <p class="empty-report">
              No exchange yet: send your client's requests to this fake, and they go to the upstream and are compared
              here.
            </p>
          ) : (
            <Table
              caption="Agreement per operation"
              headings={['Operation', 'Exchanges', 'Compared', 'Agreed', 'Agreement', 'Not comparable', 'Differences']}
              rows={report.operations}
              row={(o) => (
                <tr key={o.operation ?? ''} style={o.differences > 0 ? { fontWeight: 600 } : undefined}>
                  <td>{o.operation ?? '(a path the document does not have)'}</td>
                  <td>{o.exchanges}</td>
                  <td>{o.compared}</td>
                  <td>{o.agreed}</td>
                  <td>{percent(o.agreed, o.compared)}</td>
                  <td>{o.not_comparable}</td>
                  <td>{o.differences}</td>
                </tr>
              )}
            />
          )}
          {report.differences.length > 0 && (
            <>
              <h2>Differences</h2>
              <ul class="findings">
                {report.differences.map((d, i) => (
                  <DifferenceCard key={`${d.request_id}-${i}`} difference={d} />
                ))}
              </ul>
            </>
          )}
          {report.not_comparable_exchanges.length > 0 && (
            <>
              <h2>Not comparable</h2>
              <ul>
                {report.not_comparable_exchanges.map((n) => (
                  <li key={n.request_id}>
                    <Link to={`requests?ids=${n.request_id}`}>{n.request_id}</Link>{' '}
                    <code>
                      {n.method} {n.path}
                    </code>
                    : {n.reason}
                  </li>
                ))}
              </ul>
            </>
          )}
          {report.document_violations.length > 0 && (
            <>
              <h2>Against the document</h2>
              <ul>
                {report.document_violations.map((v, i) => (
                  <li key={`${v.request_id}-${i}`}>
                    <Link to={`requests?ids=${v.request_id}`}>{v.request_id}</Link> (
                    {v.side === 'request' ? "your client's request" : "the upstream's answer"}){' '}
                    <code>{v.pointer || '/'}</code>: {v.message}
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </>
  );
}
