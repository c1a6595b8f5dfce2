import { bodyValue } from '../../records/journal-body.js';
import type { JournalRecord } from '../../records/journal.js';
import { isForm, REDACTED } from '../../records/secrets.js';
import { Code, type TypeScriptWriter, type Written } from '../code-writer.js';
import { expectedOf } from './expected.js';
import { differenceAssertions, type FidelityFindings } from './fidelity-step.js';
import { issuedIn, stemOf, type IssuedIdentifiers } from './identifiers.js';
import { answerOf, assignment, statement, type ReplayStep, type Statement } from './statements.js';

export const CLIENT_ID = new Code('CLIENT_ID');
export const CLIENT_SECRET = new Code('CLIENT_SECRET');
const WRONG_SECRET = new Code('WRONG_SECRET');
const TOKEN_ENDPOINT = 'createToken';

/** A path with issued identifiers shown as `{account1}`: the step's name. */
const shownPath = (path: string, ids: IssuedIdentifiers): string =>
  ids
    .pathParts(path)
    .map((part) => (typeof part === 'string' ? part : `{${part.text}}`))
    .join('');

const answered = (r: JournalRecord): string =>
  r.entry.status === 0
    ? 'no answer (connection dropped)'
    : `${r.entry.status}${r.entry.code ? ` ${r.entry.code}` : ''}`;

/**
 * A token request's form as the replay sends it: the client's secret as this replay's client has it (a wrong one where
 * the session's was refused), an audience naming the session's fake as naming the replay's.
 */
function tokenForm(form: URLSearchParams, refused: boolean, baseUrl: string): Written {
  const { host, hostname } = new URL(baseUrl);
  const field = ([name, value]: [string, string]): [string, Written] => {
    if (name === 'client_secret') return [name, refused ? WRONG_SECRET : CLIENT_SECRET];
    if (name === 'audience' && value === host) return [name, new Code('new URL(fake.url).host', [])];
    if (name === 'audience' && value === hostname) return [name, new Code('new URL(fake.url).hostname', [])];
    return [name, value];
  };
  // entries, not assignments: a field named `__proto__` stays a field
  return Object.fromEntries([...form].map(field));
}

/** The header the request carried, as the replay sends it: never the session's token or secret. */
function authorizationOf(r: JournalRecord, tokenRequest: boolean, w: TypeScriptWriter): string | undefined {
  const { authorization } = r.kept;
  const refused = r.entry.status === 401;
  if (authorization === 'basic')
    return `${w.code(new Code('basic'))}(${w.code(CLIENT_ID)}, ${w.code(refused && tokenRequest ? WRONG_SECRET : CLIENT_SECRET)})`;
  if (authorization !== 'bearer') return undefined;
  // a token this fake never issued was refused as such; an expired one expires again on the replay's clock
  if (refused && r.entry.code === 'invalid_token') return "'Bearer not-a-token-of-this-fake'";
  return `\`Bearer \${${w.code(new Code('token'))}}\``;
}

/**
 * A request of the session as a step: sent as it was (its identifiers from earlier answers as variables), its answer
 * asserted (status; an error's problem `code`, or OAuth's `error`; a success's members, `expectedOf`), and the
 * identifiers it issued read into variables for the steps after it.
 */
export function requestStep(
  r: JournalRecord,
  n: number,
  ids: IssuedIdentifiers,
  baseUrl: string,
  w: TypeScriptWriter,
  fidelity?: FidelityFindings,
): ReplayStep {
  const { entry } = r;
  const differences = fidelity?.differences.get(entry.id);
  const title = `${n}. ${entry.method} ${shownPath(entry.path, ids)} → ${answered(r)}${differences ? " (the upstream's answer, where the fake differed)" : ''}`;
  const step = (statements: Statement[], skipped?: string): ReplayStep => ({
    title,
    tenantAt: r.evidence.tenantAt,
    statements,
    ...(skipped && { skipped }),
  });
  const tokenRequest = entry.operation_id === TOKEN_ENDPOINT;
  const request = r.requestBody;
  const response = r.responseBody;

  const notComparable = fidelity?.notComparable.get(entry.id);
  if (notComparable !== undefined) return step([], `shadow mode could not compare it (${notComparable})`);
  const secretQuery = Object.values(entry.query).some((value) => value.includes(REDACTED));
  if (secretQuery)
    return step([], 'its query carried a secret (a link signature, a token), which the export does not hold');
  if (entry.path.includes(REDACTED))
    return step([], "its path carried a secret (a token, the client's secret), which the export does not hold");
  if (request?.truncated)
    return step(
      [],
      `its body (${request.size} bytes) was cut by the journal, so it cannot be sent again; steps using what it made fail`,
    );

  // the path and query as they were sent, byte for byte (no `..` resolved, nothing encoded again)
  const query = r.sentQuery;
  const target = [...ids.pathParts(entry.path), ...(query === '' ? [] : ['?', ...ids.queryParts(query)])];
  const call = (): string => {
    const options: string[] = [];
    if (request && request.text !== null && request.size > 0) {
      if (isForm(request.contentType)) {
        const form = new URLSearchParams(request.text);
        options.push(
          `form: ${w.literal(tokenRequest ? tokenForm(form, entry.status === 401, baseUrl) : ids.written(Object.fromEntries(form)), 2)}`,
        );
      } else {
        const json = bodyValue(request);
        if (typeof json === 'object' && json !== null && /json/i.test(request.contentType ?? ''))
          options.push(`json: ${w.literal(ids.written(json), 2)}`);
        else
          options.push(
            `text: ${w.string(request.text)}`,
            `contentType: ${w.string(request.contentType ?? 'text/plain')}`,
          );
      }
    }
    const authorization = authorizationOf(r, tokenRequest, w);
    if (authorization) options.push(`authorization: ${authorization}`);
    w.uses('send');
    return `send(${w.string(entry.method)}, ${w.joined(target)}${options.length > 0 ? `, {\n  ${options.join(',\n  ')},\n}` : ''})`;
  };

  if (entry.status === 0)
    return step([statement(w, () => (w.uses('expect', 'STEP'), `await expect(${call()}, STEP).rejects.toThrow();`))]);
  const statements = [
    answerOf(w, call),
    statement(w, () => (w.uses('expect', 'answer', 'STEP'), `expect(answer.status, STEP).toBe(${entry.status});`)),
  ];
  if (entry.status >= 400) {
    if (entry.code)
      statements.push(
        statement(
          w,
          () => (
            w.uses('expect', 'answer', 'STEP'),
            `expect(answer.body?.${tokenRequest ? 'error' : 'code'}, STEP).toBe(${w.string(entry.code!)});`
          ),
        ),
      );
    return step(differences ? [...statements, ...differenceAssertions(differences, ids, w)] : statements);
  }
  const body =
    response && !response.truncated && response.text !== null && /json/i.test(response.contentType ?? '')
      ? bodyValue(response)
      : undefined;
  if (tokenRequest)
    return step([
      ...statements,
      assignment(w, 'token', () => (w.uses('issuedToken', 'answer', 'STEP'), 'issuedToken(answer.body, STEP)'), true),
    ]);
  if (body === undefined)
    return step(
      response?.truncated
        ? [...statements, statement(w, () => '// its answer was cut by the journal: its status only is compared')]
        : statements,
    );

  const named = (value: string): boolean =>
    entry.path.includes(value) || JSON.stringify(entry.query).includes(value) || (request?.text ?? '').includes(value);
  const topStem = stemOf(
    entry.path
      .split('/')
      .filter((segment) => segment !== '' && !ids.variableOf(segment) && !/\d/.test(segment))
      .pop() ?? 'record',
  );
  const fresh = issuedIn(
    body,
    topStem,
    (value) => named(value) || ids.isStarting(value) || ids.variableOf(value) !== undefined,
  );
  // in shadow mode the starting worlds differ: only what the comparison found different is asserted
  const expected = fidelity ? undefined : expectedOf(body, ids, new Set(fresh.map((f) => f.value)));
  // identifiers first: a member that differs fails this step alone, not every step that uses what it made
  for (const { value, pointer, stem } of fresh) {
    const variable = ids.add(value, stem).text;
    statements.push(
      assignment(
        w,
        variable,
        () => (w.uses('issued', 'answer', 'STEP'), `issued(answer.body, ${w.string(pointer)}, STEP)`),
        true,
      ),
    );
  }
  if (differences) statements.push(...differenceAssertions(differences, ids, w));
  if (expected !== undefined)
    statements.push(
      statement(
        w,
        () => (w.uses('expect', 'answer', 'STEP'), `expect(answer.body, STEP).toMatchObject(${w.literal(expected)});`),
      ),
    );
  return step(statements);
}
