import { useState } from 'preact/hooks';
import type { Fault, Schemas } from '../api.js';
import { useApp } from '../app.js';
import { ProblemView, Table } from '../components.js';

export function FaultTable({ faults, onRemove }: { faults: Fault[]; onRemove?: (id: string) => void }) {
  return (
    <Table
      headings={[
        'Fault',
        'Method',
        'Path',
        'Effect',
        'When',
        'Remaining',
        'Probability',
        onRemove && <span class="visually-hidden">Remove</span>,
      ]}
      rows={faults}
      row={(f) => (
        <tr key={f.id}>
          <td>{f.id}</td>
          <td>{f.method ?? 'any'}</td>
          <td class="path">{f.path ?? 'any'}</td>
          <td>
            {[
              f.status !== null &&
                `status ${f.status}${f.retry_after_seconds !== null ? ` (Retry-After ${f.retry_after_seconds} s)` : ''}`,
              f.latency_ms !== null && `${f.latency_ms} ms latency`,
              f.drop && 'dropped connection',
            ]
              .filter(Boolean)
              .join(', ')}
          </td>
          <td>{f.phase === 'after' ? 'after the operation' : 'before the operation'}</td>
          <td>{f.remaining === null ? 'unlimited' : f.remaining}</td>
          <td>{f.probability === 1 ? 'always' : `${f.probability} (seed ${f.seed})`}</td>
          {onRemove && (
            <td>
              <button type="button" class="small" onClick={() => onRemove(f.id)} aria-label={`Remove fault ${f.id}`}>
                Remove
              </button>
            </td>
          )}
        </tr>
      )}
    />
  );
}

type Kind = 'status' | 'latency' | 'drop';

export function Faults() {
  const app = useApp();
  const [method, setMethod] = useState('');
  const [path, setPath] = useState('');
  const [kind, setKind] = useState<Kind>('status');
  const [status, setStatus] = useState('503');
  const [retryAfter, setRetryAfter] = useState('');
  const [latency, setLatency] = useState('2000');
  const [phase, setPhase] = useState<Schemas['FaultPhase']>('before');
  const [limit, setLimit] = useState<'count' | 'probability' | 'always'>('count');
  const [count, setCount] = useState('1');
  const [probability, setProbability] = useState('0.5');
  const [seed, setSeed] = useState('1');
  const [error, setError] = useState<unknown>();
  const value = (e: Event) => (e.target as HTMLInputElement).value;

  const add = async (e: Event) => {
    e.preventDefault();
    const fault: Schemas['FaultCreate'] = {
      ...(method && { method }),
      ...(path && { path }),
      ...(kind === 'status' && {
        status: Number(status),
        ...(retryAfter && { retry_after_seconds: Number(retryAfter) }),
      }),
      ...(kind === 'latency' && { latency_ms: Number(latency) }),
      ...(kind === 'drop' && { drop: true }),
      ...(phase === 'after' && { phase }),
      ...(limit === 'count' && { count: Number(count) }),
      ...(limit === 'probability' && { probability: Number(probability), seed: Number(seed) }),
    };
    try {
      setError(undefined);
      const added = await app.api.addFault(fault);
      await app.refresh();
      app.notify(`Fault ${added.id} added: the next matching call of ${app.clientId} gets it.`);
    } catch (err) {
      setError(err);
    }
  };
  const run = async (what: () => Promise<void>, done: string) => {
    try {
      setError(undefined);
      await what();
      await app.refresh();
      app.notify(done);
    } catch (err) {
      setError(err);
    }
  };

  return (
    <>
      <h1>Faults of {app.clientId}</h1>
      <p>
        A fault answers the partner's matching calls instead of the API: an error status, a delay, or a dropped
        connection. After the operation, the write is applied and only its answer is lost: how a client's retry is
        tested.
      </p>
      <form class="card" onSubmit={add} aria-labelledby="add-fault-h">
        <h2 id="add-fault-h">Add a fault</h2>
        <div class="row">
          <label>
            Method{' '}
            <select value={method} onChange={(e) => setMethod(value(e))}>
              <option value="">any</option>
              {['GET', 'POST', 'PATCH', 'DELETE'].map((m) => (
                <option key={m}>{m}</option>
              ))}
            </select>
          </label>
          <label>
            Path <input value={path} placeholder="any, or /v1/orders/*" onInput={(e) => setPath(value(e))} />
          </label>
        </div>
        <fieldset class="row">
          <legend>Effect</legend>
          <label>
            <input type="radio" name="kind" checked={kind === 'status'} onChange={() => setKind('status')} /> Status
          </label>
          <label>
            <span class="visually-hidden">Status code</span>
            <input
              type="number"
              min={400}
              max={599}
              value={status}
              disabled={kind !== 'status'}
              onInput={(e) => setStatus(value(e))}
            />
          </label>
          <label>
            Retry-After (s, 429/503){' '}
            <input
              type="number"
              min={0}
              max={86400}
              value={retryAfter}
              disabled={kind !== 'status'}
              placeholder="1"
              onInput={(e) => setRetryAfter(value(e))}
            />
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'latency'} onChange={() => setKind('latency')} /> Latency
          </label>
          <label>
            <span class="visually-hidden">Latency in milliseconds</span>
            <input
              type="number"
              min={0}
              max={60000}
              value={latency}
              disabled={kind !== 'latency'}
              onInput={(e) => setLatency(value(e))}
            />{' '}
            ms
          </label>
          <label>
            <input type="radio" name="kind" checked={kind === 'drop'} onChange={() => setKind('drop')} /> Drop the
            connection
          </label>
        </fieldset>
        <fieldset class="row">
          <legend>When</legend>
          <label>
            <input type="radio" name="phase" checked={phase === 'before'} onChange={() => setPhase('before')} /> Before
            the operation (nothing is done)
          </label>
          <label>
            <input type="radio" name="phase" checked={phase === 'after'} onChange={() => setPhase('after')} /> After the
            operation (it is done, the answer is lost)
          </label>
        </fieldset>
        <fieldset class="row">
          <legend>How often</legend>
          <label>
            <input type="radio" name="limit" checked={limit === 'count'} onChange={() => setLimit('count')} /> Count
          </label>
          <label>
            <span class="visually-hidden">Times</span>
            <input
              type="number"
              min={1}
              value={count}
              disabled={limit !== 'count'}
              onInput={(e) => setCount(value(e))}
            />{' '}
            time(s)
          </label>
          <label>
            <input
              type="radio"
              name="limit"
              checked={limit === 'probability'}
              onChange={() => setLimit('probability')}
            />{' '}
            Probability
          </label>
          <label>
            <span class="visually-hidden">Probability from 0 to 1</span>
            <input
              type="number"
              min={0}
              max={1}
              step={0.05}
              value={probability}
              disabled={limit !== 'probability'}
              onInput={(e) => setProbability(value(e))}
            />
          </label>
          <label>
            seed{' '}
            <input
              type="number"
              min={0}
              value={seed}
              disabled={limit !== 'probability'}
              onInput={(e) => setSeed(value(e))}
            />
          </label>
          <label>
            <input type="radio" name="limit" checked={limit === 'always'} onChange={() => setLimit('always')} /> Every
            time, until removed
          </label>
        </fieldset>
        <button type="submit">Add fault</button>
        <ProblemView error={error} />
      </form>
      <h2>Active faults</h2>
      {app.faults && app.faults.length > 0 ? (
        <>
          <FaultTable
            faults={app.faults}
            onRemove={(id) => run(() => app.api.removeFault(id), `Fault ${id} removed.`)}
          />
          <p>
            <button
              type="button"
              class="danger"
              onClick={() => run(() => app.api.clearFaults(), 'Every fault removed.')}
            >
              Remove every fault
            </button>
          </p>
        </>
      ) : (
        <p>{app.faults ? 'None.' : 'Loading…'}</p>
      )}
    </>
  );
}
