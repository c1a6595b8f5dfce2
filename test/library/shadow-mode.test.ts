import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type FakeServer } from '../../src/index.js';
import { scriptedSession } from '../support/shadow-session.js';

let upstream: FakeServer;
let shadow: FakeServer;

beforeAll(async () => {
  upstream = await startServer({ seed: 7 });
  shadow = await startServer({ seed: 7, upstream: upstream.url, logLevel: 'error' });
});
afterAll(async () => {
  await shadow?.stop();
  await upstream?.stop();
});

const fidelity = async () => (await fetch(`${shadow.url}/__control/fidelity`)).json();

describe('shadow mode in front of another fake with the same seed', () => {
  it('answers with the upstream and reports no difference over a session touching every operation', async () => {
    const steps = await scriptedSession(shadow.url, upstream.state());
    expect(steps.find((s) => s.status >= 500)).toBeUndefined();
    const report = await fidelity();
    console.log(JSON.stringify(report, null, 1));
    expect(report.differences).toEqual([]);
  });
});
