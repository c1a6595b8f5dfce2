import type { World } from '../../api/types.js';
import type { FixturesSource, SpanOrigin } from '../../records/control-steps.js';
import { literal } from './code.js';
import type { Snapshot } from './control-step.js';
import type { ReplayStep } from './request-step.js';
import { FIDELITY_HELPERS } from './fidelity-step.js';

/** What the file says about where it came from and what it starts from. */
export interface FileHead {
  clientId: string;
  packageName: string;
  version: string;
  /** Real time of the reset the span begins at (null: the tenant's start). */
  resetAt: number | null;
  origin: SpanOrigin;
  fixtures: FixturesSource;
  /** Own fixtures: the world, inlined. */
  ownFixtures?: World;
  requests: number;
  controls: number;
  /** Why the session cannot be replayed as a whole (the file then skips it, saying so). */
  notReplayable?: string;
  /** Shadow mode: the upstream whose answers the file asserts where the fake's differed, and how many differed. */
  fidelity?: { upstream: string; differing: number };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const indented = (lines: readonly string[], pad: string): string[] => lines.flatMap((line) => line.split('\n')).map((line) => (line === '' ? '' : `${pad}${line}`));

function startOptions(head: FileHead): string {
  const { origin, fixtures } = head;
  const client = { client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>', scopes: origin.scopes, token_endpoint_auth_method: origin.token_endpoint_auth_method, settings: origin.settings };
  const clients = literal([client as never], 2).replace('"<CLIENT_ID>"', 'CLIENT_ID').replace('"<CLIENT_SECRET>"', 'CLIENT_SECRET');
  const world =
    fixtures.kind === 'generated'
      ? [`seed: ${fixtures.seed},`, ...(fixtures.scale ? [`fixtureScale: ${literal(fixtures.scale as never, 2)},`] : [])]
      : ['fixtures: FIXTURES as World,'];
  return ['{', ...indented(world, '  '), `  clients: ${clients},`, '}'].join('\n');
}

const HELPERS = `
/** Moves the replay's frozen clock to an instant of the session: by the time that passed (what was due in it happens), or set there. */
async function clockAt(instant: string, how: 'advance' | 'set' = 'advance'): Promise<void> {
  const ms = Date.parse(instant);
  if (how === 'set') await control.setClock(instant, { frozen: true });
  else if (ms !== clock) await control.advanceClock((ms - clock) / 1000);
  clock = ms;
}

interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Sends one request of the session to the replay's fake; the answer's body parsed when it is JSON. */
async function send(
  method: string,
  path: string,
  request: { query?: Record<string, string>; json?: unknown; form?: Record<string, string>; text?: string; contentType?: string; authorization?: string } = {},
): Promise<Answer> {
  const url = new URL(fake.url + path);
  for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.append(name, value);
  const headers: Record<string, string> = {};
  if (request.authorization !== undefined) headers['authorization'] = request.authorization;
  let body: string | undefined;
  if (request.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(request.json)];
  else if (request.form !== undefined) [headers['content-type'], body] = ['application/x-www-form-urlencoded', new URLSearchParams(request.form).toString()];
  else if (request.text !== undefined) [headers['content-type'], body] = [request.contentType ?? 'text/plain', request.text];
  const response = await fetch(url, { method, headers, ...(body !== undefined && { body }) });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}

/** An identifier the session issued, read from the replayed answer at a JSON pointer. */
function issued(body: unknown, pointer: string, step: string): string {
  let value: unknown = body;
  for (const key of pointer.split('/').slice(1)) value = (value as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')];
  expect(typeof value, \`\${step}: the identifier at \${pointer}\`).toBe('string');
  return value as string;
}

function issuedToken(body: unknown, step: string): string {
  return issued(body, '/access_token', step);
}

const basic = (id: string, secret: string): string => \`Basic \${btoa(\`\${encodeURIComponent(id)}:\${encodeURIComponent(secret)}\`)}\`;
`;

/** The test file: a header saying what it replays and how to run it, the fake started as the span began, one `it` per step. */
export function renderFile(head: FileHead, steps: readonly ReplayStep[], variables: readonly string[], snapshots: readonly Snapshot[]): string {
  const began = head.resetAt === null ? "the tenant's start" : `its reset at ${iso(head.resetAt)}`;
  const world =
    head.origin.world === 'restored'
      ? 'a world restored from STATE_DIR'
      : head.fixtures.kind === 'generated'
        ? `the world of seed ${head.fixtures.seed}${head.fixtures.scale ? ` (scale ${JSON.stringify(head.fixtures.scale)})` : ''}`
        : 'the fake\'s own fixtures (FIXTURES, below)';
  const about = head.fidelity
    ? [
        `// Shadow mode's differences between the fake and ${head.fidelity.upstream.replace(/[\r\n\u2028\u2029]/g, ' ')} in the session of client "${head.clientId.replace(/[\r\n\u2028\u2029]/g, ' ')}", as a test:`,
        `// ${head.fidelity.differing} exchange(s) differed. The session is replayed on a fake as its twin began; where the fake's answer differed,`,
        "// the upstream's is asserted (status, problem code, the members that differed), so this file fails against the",
        '// fake until the fake agrees. Exchanges shadow mode could not compare are skipped, saying why.',
        `// Written by ${head.packageName} ${head.version} (GET /__control/fidelity?format=vitest).`,
        '//',
      ]
    : [];
  const out: string[] = [
    ...about,
    `// The session of client "${head.clientId.replace(/[\r\n\u2028\u2029]/g, ' ')}" since ${began}, replayed as a test: ${head.requests} request(s) and ${head.controls} control change(s).`,
    `// Written by ${head.packageName} ${head.version} (GET /__control/export?format=vitest).`,
    '//',
    `// It starts a fake in this process from ${world}, with the client's settings and the tenant's clock as the`,
    '// session began (the clock frozen: it moves only as the session\'s did), then replays every step in order, each',
    "// request at the tenant's instant it was made. Each answer is asserted: its status, an error's problem code,",
    "// a success's members (instants, links and what the journal redacted left out). Identifiers the session created",
    '// are read from the replayed answers; those of the starting world are written as they are. No secret or token of',
    '// the session is here: the client gets a secret made up for this replay.',
    '//',
    `// Run it: npm install --save-dev ${head.packageName}@${head.version} vitest, then npx vitest run <this file>.`,
    '// It passes against the version that wrote it; where the fake answers otherwise, the failing step is named.',
    ...(head.notReplayable ? ['//', `// NOT REPLAYED: ${head.notReplayable}.`] : []),
    "import { afterAll, beforeAll, describe, expect, it } from 'vitest';",
    `import { startServer, type FakeServer${head.ownFixtures || snapshots.length > 0 ? ', type World' : ''} } from '${head.packageName}';`,
    '',
    `const CLIENT_ID = ${literal(head.clientId)};`,
    '/** Made up by each run of this file: the session\'s own secret is never exported. */',
    'const CLIENT_SECRET = `replay-${crypto.randomUUID()}`;',
    'const WRONG_SECRET = `${CLIENT_SECRET}-wrong`;',
    `const STARTED_AT = ${literal(iso(head.origin.clockMs))};`,
    '',
    'let fake: FakeServer;',
    "let control: ReturnType<FakeServer['control']['forClient']>;",
    "let token = '';",
    'let clock = Date.parse(STARTED_AT);',
    ...(variables.length > 0 ? ['// identifiers the session created, read from the replayed answers', `let ${variables.map((name) => `${name} = ''`).join(', ')};`] : []),
    HELPERS,
    ...(head.fidelity ? [FIDELITY_HELPERS] : []),
    `describe${head.notReplayable ? '.skip' : ''}(${literal(`session of ${head.clientId}`)}, () => {`,
    '  beforeAll(async () => {',
    ...indented([`fake = await startServer(${startOptions(head)});`], '    '),
    '    control = fake.control.forClient(CLIENT_ID);',
    '    await control.setClock(STARTED_AT, { frozen: true });',
    '    // a token of the client as the session may have held one from before its span',
    '    token = await fake.token(CLIENT_ID);',
    '  });',
    '',
    '  afterAll(async () => {',
    '    await fake?.stop();',
    '  });',
  ];
  if (steps.length === 0) {
    // vitest fails a file without a test: an empty session passes, saying so
    out.push(
      '',
      `  it(${literal('the session made no request since its start: the fake starts from its world at its clock')}, async () => {`,
      '    expect(Date.parse((await control.now()).now)).toBe(clock);',
      '  });',
    );
  }
  for (const step of steps) {
    out.push('');
    if (step.skipped) {
      out.push(`  // not replayed: ${step.skipped}`, `  it.skip(${literal(step.title)}, () => {});`);
      continue;
    }
    out.push(`  it(${literal(step.title)}, async () => {`);
    if (step.lines.some((line) => line.includes('STEP'))) out.push(`    const STEP = ${literal(step.title)};`);
    if (step.tenantAt !== null) out.push(`    await clockAt(${literal(iso(step.tenantAt))}${step.clock === 'set' ? ", 'set'" : ''});`);
    out.push(...indented(step.lines, '    '), '  });');
  }
  out.push('});', '');
  if (head.ownFixtures) out.push('/** The fake\'s own fixtures, the world every reset began from. */', `const FIXTURES = ${JSON.stringify(head.ownFixtures, null, 2)};`, '');
  for (const snapshot of snapshots) out.push(`/** A snapshot the session loaded (PUT /__control/state). */`, `const ${snapshot.name} = ${JSON.stringify(JSON.parse(snapshot.world), null, 2)};`, '');
  return out.join('\n');
}
