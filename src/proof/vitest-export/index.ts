import type { World } from '../../api/types.js';
import type { FixturesSource, SpanOrigin } from '../../records/control-steps.js';
import type { JournalSpanRecords } from '../../records/journal.js';
import { TypeScriptWriter } from '../code-writer.js';
import { secretForms, withoutSecretValues } from '../../records/secrets.js';
import { runNow, type Slices } from '../../util/slices.js';
import { controlStep, type Snapshot } from './control-step.js';
import { IssuedIdentifiers } from './identifiers.js';
import { renderFile } from './render.js';
import type { FidelityFindings } from './fidelity-step.js';
import { requestStep } from './request-step.js';
import type { ReplayStep } from './statements.js';

/** What a tenant's session is replayed from: its span, where the span began, who wrote it. */
export interface SessionToReplay {
  clientId: string;
  /** The session's fake as its client addressed it: a token request's audience named it. */
  baseUrl: string;
  /** The client's secret and anything else never to be written (`secrets.ts`): taken out of every value written. */
  credentials: readonly string[];
  span: JournalSpanRecords;
  origin: SpanOrigin;
  fixtures: FixturesSource;
  /** The fixtures every reset begins from (own ones inlined; their identifiers written as they are). */
  fixturesWorld: () => World;
  packageName: string;
  version: string;
  /** Shadow mode: assert the upstream's answers where the fake's differed (`GET /__control/fidelity?format=vitest`). */
  fidelity?: FidelityFindings;
}

/**
 * The tenant's session since its last reset as one vitest file (docs/test-suites.md, "A failing session as a test that
 * runs"): a fake started in-process as the span began, then each request and control change in order, answers asserted.
 */
export const vitestFileOf = (session: SessionToReplay): string => runNow(vitestFileSteps(session));

/** `vitestFileOf` step by step (`slices.ts`): the control plane gives the event loop a turn between them. */
export function* vitestFileSteps(session: SessionToReplay): Slices<string> {
  // the bodies are read redacted; the client's own credentials, and those its requests carried, go from every value
  // the file writes, before it is written (never from the written code: a secret may read as code)
  const credentials = new Set(session.credentials);
  for (const record of session.span.records)
    for (const credential of record.kept.credentials ?? []) credentials.add(credential);
  const forms = secretForms([...credentials]);
  const w = new TypeScriptWriter((text) => withoutSecretValues(text, forms));
  const ids = new IssuedIdentifiers();
  const fixtures = session.fixturesWorld();
  ids.addStarting(fixtures);
  const snapshots: Snapshot[] = [];
  const steps: ReplayStep[] = [];
  let requests = 0;
  let controls = 0;
  for (const record of session.span.records) {
    yield;
    const n = steps.length + 1;
    if (record.control) {
      controls++;
      steps.push(controlStep(record.control, record.evidence.tenantAt, n, ids, snapshots, w));
    } else {
      requests++;
      steps.push(requestStep(record, n, ids, session.baseUrl, w, session.fidelity));
    }
  }
  const notReplayable =
    session.origin.world === 'restored'
      ? "the span began from a world restored from STATE_DIR at the fake's start, which the export does not hold: reset the tenant, then run the session again"
      : !session.span.complete
        ? 'the journal no longer holds the whole span (a budget let its oldest entries go, or DELETE /__control/requests cleared them): reset the tenant, then run the session again'
        : undefined;
  return renderFile(
    {
      clientId: session.clientId,
      packageName: session.packageName,
      version: session.version,
      resetAt: session.span.reset?.at ?? null,
      origin: session.origin,
      fixtures: session.fixtures,
      ...(session.fixtures.kind === 'own' && { ownFixtures: fixtures }),
      requests,
      controls,
      ...(notReplayable && { notReplayable }),
      ...(session.fidelity && {
        fidelity: { upstream: session.fidelity.upstream, differing: session.fidelity.differences.size },
      }),
    },
    steps,
    ids.variables,
    snapshots,
    w,
  );
}

/** Shadow mode found no difference in a client's exchanges: a file that says so, and passes. */
export function noDifferenceFile(
  upstream: string,
  clientId: string | undefined,
  packageName: string,
  version: string,
): string {
  const w = new TypeScriptWriter();
  const whose = clientId === undefined ? 'any client' : `client "${clientId}"`;
  return [
    `// Shadow mode found no difference between the fake and ${w.comment(upstream)} in the exchanges of ${w.comment(whose)}.`,
    `// Written by ${w.comment(packageName)} ${w.comment(version)} (GET /__control/fidelity?format=vitest): nothing to replay, so it passes.`,
    "import { expect, it } from 'vitest';",
    '',
    `it(${w.string(`shadow mode: the fake agreed with the upstream on every exchange of ${whose} it compared`)}, () => {`,
    '  expect(0).toBe(0);',
    '});',
    '',
  ].join('\n');
}
