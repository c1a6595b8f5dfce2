import { useEffect, useState } from 'preact/hooks';
import { ControlError, type Schemas } from '../api.js';
import { useApp } from '../app.js';
import { Link, ProblemView, Table } from '../components.js';

type Report = Schemas['FidelityReport'];
type Difference = Schemas['FidelityDifference'];

const KIND_TEXT: Record<Difference['kind'], string> = {
  status: 'another status',
  error_code: 'another error code',
  missing_field: 'a field the fake lacks',
  extra_field: 'a field only the fake has',
  type: 'another JSON type',
  enum_value: 'a value outside the enum',
  value: 'another value',
};

// the view's own layout, kept here rather than in the shared stylesheet
const SIDE_BY_SIDE = { display: 'grid', gridTemplateColumns: '1fr 1fr', gap: '0.75rem' };
const FIGURE = { margin: 0, minWidth: 0 };

const json = (value: unknown): string => (value === null || value === undefined ? '(none)' : JSON.stringify(value, null, 2));

const percent = (part: number, whole: number): string => (whole === 0 ? '–' : `${Math.round((100 * part) / whole)} %`);

function DifferenceCard({ difference }: { difference: Difference }) {
  return (
    <li class="card difference">
      <h3>
        <code>{difference.kind}</code> {KIND_TEXT[difference.kind]} at <code>{difference.pointer === '' ? '(the status)' : difference.pointer}</code>
      </h3>
      <p>
        Request <Link to={`requests?ids=${difference.request_id}`}>{difference.request_id}</Link>:{' '}
        <code>
          {difference.method} {difference.path}
        </code>{' '}
        ({difference.operation ?? 'a path the document does not have'})
      </p>
      <div class="side-by-side" style={SIDE_BY_SIDE}>
        <figure style={FIGURE}>
          <figcaption>Upstream (the real service)</figcaption>
          <pre>{json(difference.upstream)}</pre>
        </figure>
        <figure style={FIGURE}>
          <figcaption>The fake</figcaption>
          <pre>{json(difference.fake)}</pre>
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
    void load().then((again) => {
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
    return (
      <>
        <h1>Fidelity</h1>
        <p class="empty-report">
          The fake is not in shadow mode. Start it with <code>--upstream &lt;base URL&gt;</code> (<code>UPSTREAM_URL</code>) in front of the real service
          to see where the two agree and differ on your client's traffic.
        </p>
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
            In front of <code>{report.upstream}</code>: {report.exchanges} exchange(s), {report.compared} compared, {report.agreed} agreed,{' '}
            {report.not_comparable} not comparable, {report.differences.length} difference(s).{' '}
            <button type="button" class="small" onClick={() => void clear()}>
              Clear
            </button>
          </p>
          {report.exchanges === 0 ? (
            <p class="empty-report">No exchange yet: send your client's requests to this fake, and they go to the upstream and are compared here.</p>
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
                    <Link to={`requests?ids=${v.request_id}`}>{v.request_id}</Link> ({v.side === 'request' ? "your client's request" : "the upstream's answer"}){' '}
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
