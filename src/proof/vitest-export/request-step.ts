import { bodyValue } from '../../records/journal-body.js';
import type { JournalRecord } from '../../records/journal.js';
import { isForm, REDACTED } from '../../records/secrets.js';
import { joined, literal, Variable, type Written } from './code.js';
import { expectedOf } from './expected.js';
import { differenceAssertions, type FidelityFindings } from './fidelity-step.js';
import { issuedIn, stemOf, type IssuedIdentifiers } from './identifiers.js';

/** One `it` of the file: its name, the tenant's instant it ran at, its lines; or why it cannot be replayed. */
export interface ReplayStep {
  title: string;
  tenantAt: number | null;
  /** How the clock gets to `tenantAt`: by the time that passed (what was due in it happens), or set there. */
  clock?: 'advance' | 'set';
  lines: string[];
  skipped?: string;
}

export const CLIENT_ID = new Variable('CLIENT_ID');
export const CLIENT_SECRET = new Variable('CLIENT_SECRET');
const WRONG_SECRET = new Variable('WRONG_SECRET');
const TOKEN_ENDPOINT = 'createToken';

/** A path with issued identifiers shown as `{account1}`: the step's name. */
const shownPath = (path: string, ids: IssuedIdentifiers): string =>
  ids.pathParts(path).map((part) => (typeof part === 'string' ? part : `{${part.name}}`)).join('');

const answered = (r: JournalRecord): string => (r.entry.status === 0 ? 'no answer (connection dropped)' : `${r.entry.status}${r.entry.code ? ` ${r.entry.code}` : ''}`);

/**
 * A token request's form as the replay sends it: the client's secret as this replay's client has it (a wrong one where
 * the session's was refused), an audience naming the session's fake as naming the replay's.
 */
function tokenForm(form: URLSearchParams, refused: boolean, baseUrl: string): Written {
  const { host, hostname } = new URL(baseUrl);
  const out: Record<string, Written> = {};
  for (const [name, value] of form) {
    if (name === 'client_secret') out[name] = refused ? WRONG_SECRET : CLIENT_SECRET;
    else if (name === 'audience' && value === host) out[name] = new Variable('new URL(fake.url).host');
    else if (name === 'audience' && value === hostname) out[name] = new Variable('new URL(fake.url).hostname');
    else out[name] = value;
  }
  return out;
}

/** The header the request carried, as the replay sends it: never the session's token or secret. */
function authorizationOf(r: JournalRecord, tokenRequest: boolean): string | undefined {
  const { authorization } = r.kept;
  const refused = r.entry.status === 401;
  if (authorization === 'basic') return `basic(CLIENT_ID, ${refused && tokenRequest ? 'WRONG_SECRET' : 'CLIENT_SECRET'})`;
  if (authorization !== 'bearer') return undefined;
  // a token this fake never issued was refused as such; an expired one expires again on the replay's clock
  if (refused && r.entry.code === 'invalid_token') return "'Bearer not-a-token-of-this-fake'";
  return '`Bearer ${token}`';
}

/**
 * A request of the session as a step: sent as it was (its identifiers from earlier answers as variables), its answer
 * asserted (status; an error's problem `code`, or OAuth's `error`; a success's members, `expectedOf`), and the
 * identifiers it issued read into variables for the steps after it.
 */
export function requestStep(r: JournalRecord, n: number, ids: IssuedIdentifiers, baseUrl: string, fidelity?: FidelityFindings): ReplayStep {
  const { entry } = r;
  const differences = fidelity?.differences.get(entry.id);
  const title = `${n}. ${entry.method} ${shownPath(entry.path, ids)} → ${answered(r)}${differences ? ' (the upstream\'s answer, where the fake differed)' : ''}`;
  const step = (lines: string[], skipped?: string): ReplayStep => ({ title, tenantAt: r.evidence.tenantAt, lines, ...(skipped && { skipped }) });
  const tokenRequest = entry.operation_id === TOKEN_ENDPOINT;
  const request = r.requestBody;
  const response = r.responseBody;

  const notComparable = fidelity?.notComparable.get(entry.id);
  if (notComparable !== undefined) return step([], `shadow mode could not compare it (${notComparable})`);
  const secretQuery = Object.values(entry.query).some((value) => value.includes(REDACTED));
  if (secretQuery) return step([], 'its query carried a secret (a link signature, a token), which the export does not hold');
  if (request?.truncated) return step([], `its body (${request.size} bytes) was cut by the journal, so it cannot be sent again; steps using what it made fail`);

  const options: string[] = [];
  if (Object.keys(entry.query).length > 0) options.push(`query: ${literal(ids.written(entry.query), 2)}`);
  if (request && request.text !== null && request.size > 0) {
    if (isForm(request.contentType)) {
      const form = new URLSearchParams(request.text);
      options.push(`form: ${literal(tokenRequest ? tokenForm(form, entry.status === 401, baseUrl) : ids.written(Object.fromEntries(form)), 2)}`);
    } else {
      const json = bodyValue(request);
      if (typeof json === 'object' && json !== null && /json/i.test(request.contentType ?? '')) options.push(`json: ${literal(ids.written(json), 2)}`);
      else options.push(`text: ${literal(request.text)}`, `contentType: ${literal(request.contentType ?? 'text/plain')}`);
    }
  }
  const authorization = authorizationOf(r, tokenRequest);
  if (authorization) options.push(`authorization: ${authorization}`);
  const call = `send(${literal(entry.method)}, ${joined(ids.pathParts(entry.path))}${options.length > 0 ? `, {\n  ${options.join(',\n  ')},\n}` : ''})`;

  if (entry.status === 0) return step([`await expect(${call}, STEP).rejects.toThrow();`]);
  const lines = [`const answer = await ${call};`, `expect(answer.status, STEP).toBe(${entry.status});`];
  if (entry.status >= 400) {
    if (entry.code) lines.push(`expect(answer.body?.${tokenRequest ? 'error' : 'code'}, STEP).toBe(${literal(entry.code)});`);
    return step(differences ? [...lines, ...differenceAssertions(differences, ids)] : lines);
  }
  const body = response && !response.truncated && response.text !== null && /json/i.test(response.contentType ?? '') ? bodyValue(response) : undefined;
  if (tokenRequest) return step([...lines, 'token = issuedToken(answer.body, STEP);']);
  if (body === undefined) return step(response?.truncated ? [...lines, '// its answer was cut by the journal: its status only is compared'] : lines);

  const named = (value: string): boolean => entry.path.includes(value) || JSON.stringify(entry.query).includes(value) || (request?.text ?? '').includes(value);
  const topStem = stemOf(entry.path.split('/').filter((segment) => segment !== '' && !ids.variableOf(segment) && !/\d/.test(segment)).pop() ?? 'record');
  const fresh = issuedIn(body, topStem, (value) => named(value) || ids.isStarting(value) || ids.variableOf(value) !== undefined);
  // in shadow mode the starting worlds differ: only what the comparison found different is asserted
  const expected = fidelity ? undefined : expectedOf(body, ids, new Set(fresh.map((f) => f.value)));
  // identifiers first: a member that differs fails this step alone, not every step that uses what it made
  for (const { value, pointer, stem } of fresh) lines.push(`${ids.add(value, stem).name} = issued(answer.body, ${literal(pointer)}, STEP);`);
  if (differences) lines.push(...differenceAssertions(differences, ids));
  if (expected !== undefined) lines.push(`expect(answer.body, STEP).toMatchObject(${literal(expected)});`);
  return step(lines);
}
