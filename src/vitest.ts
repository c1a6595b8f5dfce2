// Types only (kept in the declaration, erased from the JavaScript): the module the declaration below augments.
/// <reference types="vitest" preserve="true" />
/**
 * Vitest matchers for a partner's suite: `expect.extend(matchers)`, then
 * `expect(fake).toHaveReceived({ operation: 'listOrders', query: { order_status: 'PLACED' } }, { at_least: 1 })` and
 * `expect(fake).toHaveNoReadinessFindings()`. `fake` is a `FakeServer` (checked in this process, at once) or a
 * control client (`fake.control`, `createControlClient(...)`, over HTTP: then `await` the assertion).
 *
 * Nothing of vitest is imported at run time, so this module loads anywhere (a global setup, a plain script).
 */
import type { ReadinessCode } from './proof/readiness-report.js';
import type { Schemas } from './api/types.js';
import type { RequestCount, RequestPattern } from './control-client.js';

type Report = Schemas['ReadinessReport'];
type Awaitable<T> = T | Promise<T>;

/** Which part of the tenant's journal an assertion reads: since its last reset, or all of it (`start`). */
export interface SpanOptions {
  since?: Schemas['JournalSpan'];
}

/** What the matchers accept: a `FakeServer` or a control client (both have `verify` and `report`). */
export interface ProofSubject {
  verify(
    pattern: RequestPattern,
    count?: RequestCount,
    options?: SpanOptions,
  ): Awaitable<Schemas['VerificationResult']>;
  report(options?: SpanOptions): Awaitable<Report>;
}

export interface ReadinessOptions extends SpanOptions {
  /** Codes of findings that do not fail the assertion. */
  allow?: readonly ReadinessCode[];
}

interface MatcherResult {
  pass: boolean;
  message: () => string;
}

const isSubject = (value: unknown): value is ProofSubject =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as ProofSubject).verify === 'function' &&
  typeof (value as ProofSubject).report === 'function';

function subjectOf(received: unknown, matcher: string): ProofSubject {
  if (!isSubject(received)) {
    throw new TypeError(
      `${matcher} expects a FakeServer (startServer()) or a control client (fake.control, createControlClient()), got ${typeof received}`,
    );
  }
  return received;
}

const isThenable = <T>(value: Awaitable<T>): value is Promise<T> =>
  typeof (value as Promise<T> | undefined)?.then === 'function';

/** Runs a check that may be sync (in process) or async (over HTTP) and judges its value or its assertion error. */
function judged<T>(
  run: () => Awaitable<T>,
  judge: (outcome: { value: T } | { failure: Error }) => MatcherResult,
): Awaitable<MatcherResult> {
  const onError = (error: unknown): MatcherResult => {
    if (error instanceof Error && (error as { code?: string }).code === 'ERR_ASSERTION')
      return judge({ failure: error });
    throw error;
  };
  let value: Awaitable<T>;
  try {
    value = run();
  } catch (error) {
    return onError(error);
  }
  return isThenable(value) ? value.then((v) => judge({ value: v }), onError) : judge({ value });
}

/** What part of the journal a report read, in words: the span a partner's assertion covered. */
function spanOf(report: Report, asked: SpanOptions['since']): string {
  return (report.since ?? asked ?? 'start') === 'reset' ? 'since its last reset' : 'over its whole journal';
}

const resetsIn = (report: Report): number => report.resets ?? 0;

function describeFindings(report: Report, findings: Report['findings'], asked: SpanOptions['since']): string {
  const resets = resetsIn(report);
  const across = resets > 0 ? `, across ${resets} reset${resets === 1 ? '' : 's'}` : '';
  const lines = [
    `The readiness report of ${report.client_id} ${spanOf(report, asked)} (${report.requests_seen} request(s) seen${across}) has ${findings.length} finding(s):`,
  ];
  for (const f of findings) {
    lines.push(
      `  [${f.severity}] ${f.code}: ${f.message}`,
      `      hint: ${f.hint}`,
      `      requests: ${f.requests.join(', ')}`,
      `      docs: ${f.docs}`,
    );
  }
  // a suite that resets before each test reads earlier tests' findings here unless it asks for its own span
  if (resets > 0)
    lines.push(`Findings before the last reset count too: { since: 'reset' } reads since the last reset only.`);
  return lines.join('\n');
}

export const matchers = {
  /**
   * The client sent requests matching the pattern, as many as `count` says (default: at least one), since its
   * tenant's last reset (`{ since: 'start' }`: in its whole journal).
   */
  toHaveReceived(
    received: unknown,
    pattern: RequestPattern,
    count?: RequestCount,
    options: SpanOptions = {},
  ): Awaitable<MatcherResult> {
    const subject = subjectOf(received, 'toHaveReceived');
    return judged(
      () => (options.since ? subject.verify(pattern, count, { since: options.since }) : subject.verify(pattern, count)),
      (outcome) =>
        'failure' in outcome
          ? { pass: false, message: () => outcome.failure.message }
          : {
              pass: true,
              message: () =>
                `Expected no such count of requests matching ${JSON.stringify(pattern)}, but ${outcome.value.matched} matched: ${outcome.value.requests.join(', ')}`,
            },
    );
  },

  /**
   * The client's readiness report has no finding (but those `allow` names) and saw at least one request: a report
   * over no requests proves nothing. Over the tenant's whole journal (`{ since: 'reset' }`: since its last reset, as
   * `toHaveReceived` counts); the failure message names the span it read and how many resets lie in it.
   */
  toHaveNoReadinessFindings(received: unknown, options: ReadinessOptions = {}): Awaitable<MatcherResult> {
    const subject = subjectOf(received, 'toHaveNoReadinessFindings');
    return judged(
      () => (options.since ? subject.report({ since: options.since }) : subject.report()),
      (outcome) => {
        if ('failure' in outcome) return { pass: false, message: () => outcome.failure.message };
        const report = outcome.value;
        const findings = report.findings.filter((f) => !options.allow?.includes(f.code));
        const span = spanOf(report, options.since);
        if (report.requests_seen === 0) {
          return {
            pass: false,
            message: () =>
              `No requests yet: the readiness report of ${report.client_id} ${span} saw no request of its client, so it proves nothing.`,
          };
        }
        return findings.length > 0
          ? { pass: false, message: () => describeFindings(report, findings, options.since) }
          : {
              pass: true,
              message: () =>
                `Expected readiness findings for ${report.client_id} ${span}, but its ${report.requests_seen} request(s) raised none.`,
            };
      },
    );
  },
};

/** A matcher answers a promise for a subject that answers over HTTP (a control client), at once for a FakeServer. */
// biome-ignore lint/suspicious/noConfusingVoidType: a matcher answers void, as vitest's own do
type ProofAssertion<T> = T extends { verify(...args: never[]): Promise<unknown> } ? Promise<void> : void;

export interface ProofMatchers<T = unknown> {
  toHaveReceived(pattern: RequestPattern, count?: RequestCount, options?: SpanOptions): ProofAssertion<T>;
  toHaveNoReadinessFindings(options?: ReadinessOptions): ProofAssertion<T>;
}

// Vitest's Assertion<T> (what expect() answers, `.not` included) extends its Matchers<T>: the place to add matchers
// since vitest 3.2 (Assertion itself cannot be augmented through the module that re-exports it).
declare module 'vitest' {
  // biome-ignore lint/suspicious/noExplicitAny: an augmentation repeats vitest's own `Matchers<T = any>` (TS2428 otherwise)
  interface Matchers<T = any> extends ProofMatchers<T> {}
}
