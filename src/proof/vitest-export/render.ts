import type { World } from '../../api/types.js';
import type { FixturesSource, SpanOrigin } from '../../records/control-steps.js';
import { Code, type TypeScriptWriter, type Written } from '../code-writer.js';
import type { Snapshot } from './control-step.js';
import { FIDELITY_HELPERS } from './fidelity-step.js';
import { CLIENT_ID, CLIENT_SECRET } from './request-step.js';
import { resolved, type ReplayStep } from './statements.js';

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

/** The package's name as an import's specifier: quoted as a hand would write it when it is an npm name, as any string else. */
const moduleName = (name: string, w: TypeScriptWriter): string =>
  /^(@[\w.-]+\/)?[\w.-]+$/.test(name) ? `'${name}'` : w.string(name);

const iso = (ms: number): string => new Date(ms).toISOString();
const indented = (lines: readonly string[], pad: string): string[] =>
  lines.flatMap((line) => line.split('\n')).map((line) => (line === '' ? '' : `${pad}${line}`));

function startOptions(head: FileHead, w: TypeScriptWriter): string {
  const { origin, fixtures } = head;
  const client: Written = {
    client_id: CLIENT_ID,
    client_secret: CLIENT_SECRET,
    scopes: origin.scopes,
    token_endpoint_auth_method: origin.token_endpoint_auth_method,
    settings: origin.settings as unknown as Written,
  };
  const world =
    fixtures.kind === 'generated'
      ? [
          `seed: ${w.literal(fixtures.seed)},`,
          ...(fixtures.scale ? [`fixtureScale: ${w.literal(fixtures.scale as Written, 2)},`] : []),
        ]
      : [`fixtures: ${w.code(new Code('FIXTURES'))} as World,`];
  return ['{', ...indented(world, '  '), `  clients: ${w.literal([client], 2)},`, '}'].join('\n');
}

/** The helpers a file may hold, each written only when the file reads it, with the names it reads itself. */
const HELPERS: { name: string; reads: readonly string[]; text: string }[] = [
  {
    name: 'clockAt',
    reads: ['control', 'clock'],
    text: `
/** Moves the replay's frozen clock to an instant of the session: by the time that passed (what was due in it happens), or set there. */
async function clockAt(instant: string, how: 'advance' | 'set' = 'advance'): Promise<void> {
  const ms = Date.parse(instant);
  if (how === 'set') await control.setClock(instant, { frozen: true });
  else if (ms !== clock) await control.advanceClock((ms - clock) / 1000);
  clock = ms;
}`,
  },
  {
    name: 'send',
    reads: ['fake'],
    text: `
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
}`,
  },
  {
    name: 'issuedToken',
    reads: ['issued'],
    text: `
function issuedToken(body: unknown, step: string): string {
  return issued(body, '/access_token', step);
}`,
  },
  {
    name: 'issued',
    reads: ['expect'],
    text: `
/** An identifier the session issued, read from the replayed answer at a JSON pointer (a member the answer has as its own). */
function issued(body: unknown, pointer: string, step: string): string {
  let value: unknown = body;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    value = value !== null && typeof value === 'object' && Object.prototype.hasOwnProperty.call(value, key) ? (value as Record<string, unknown>)[key] : undefined;
  }
  expect(typeof value, \`\${step}: the identifier at \${pointer}\`).toBe('string');
  return value as string;
}`,
  },
  {
    name: 'basic',
    reads: [],
    text: `
const basic = (id: string, secret: string): string => \`Basic \${btoa(\`\${encodeURIComponent(id)}:\${encodeURIComponent(secret)}\`)}\`;`,
  },
  { name: 'valuesAt', ...FIDELITY_HELPERS.valuesAt },
  { name: 'jsonType', ...FIDELITY_HELPERS.jsonType },
];

/** The helpers the file reads, and what they read in turn (a helper reads only those listed after it). */
function helpersRead(w: TypeScriptWriter): string[] {
  for (const helper of HELPERS) if (w.read(helper.name)) w.uses(...helper.reads);
  return HELPERS.filter((helper) => w.read(helper.name)).map((helper) => helper.text);
}

/** The test file: a header saying what it replays and how to run it, the fake started as the span began, one `it` per step. */
export function renderFile(
  head: FileHead,
  steps: readonly ReplayStep[],
  variables: readonly Code[],
  snapshots: readonly Snapshot[],
  w: TypeScriptWriter,
): string {
  // what the file reads is known once its code is written: the tests first, then what they read, then the header
  const tests: string[] = [
    '  beforeAll(async () => {',
    ...indented([`fake = await startServer(${startOptions(head, w)});`], '    '),
  ];
  const resolvedSteps = steps.map((step) => ({
    step,
    ...(step.skipped ? { lines: [], reads: new Set<string>() } : resolved(step.statements, (name) => w.read(name))),
  }));
  const body: string[] = [];
  if (steps.length === 0) {
    // vitest fails a file without a test: an empty session passes, saying so
    w.uses('expect', 'control', 'clock');
    body.push(
      '',
      `  it(${w.string('the session made no request since its start: the fake starts from its world at its clock')}, async () => {`,
      '    expect(Date.parse((await control.now()).now)).toBe(clock);',
      '  });',
    );
  }
  for (const { step, lines, reads } of resolvedSteps) {
    body.push('');
    if (step.skipped) {
      body.push(`  // not replayed: ${w.comment(step.skipped)}`, `  it.skip(${w.string(step.title)}, () => {});`);
      continue;
    }
    body.push(`  it(${w.string(step.title)}, async () => {`);
    if (reads.has('STEP')) body.push(`    const STEP = ${w.string(step.title)};`);
    if (step.tenantAt !== null) {
      w.uses('clockAt');
      body.push(`    await clockAt(${w.string(iso(step.tenantAt))}${step.clock === 'set' ? ", 'set'" : ''});`);
    }
    body.push(...indented(lines, '    '), '  });');
  }
  const tail: string[] = [];
  if (head.ownFixtures)
    tail.push(
      "/** The fake's own fixtures, the world every reset began from. */",
      `const FIXTURES = ${w.literal(head.ownFixtures as unknown as Written)};`,
      '',
    );
  for (const snapshot of snapshots)
    tail.push(
      `/** A snapshot the session loaded (PUT /__control/state). */`,
      `const ${snapshot.name} = ${w.literal(JSON.parse(snapshot.world) as Written)};`,
      '',
    );
  const helpers = helpersRead(w);
  const token = w.read('token');
  tests.push(
    '    control = fake.control.forClient(CLIENT_ID);',
    '    await control.setClock(STARTED_AT, { frozen: true });',
    ...(token
      ? [
          '    // a token of the client as the session may have held one from before its span',
          '    token = await fake.token(CLIENT_ID);',
        ]
      : []),
    '  });',
    '',
    '  afterAll(async () => {',
    '    await fake?.stop();',
    '  });',
    ...body,
  );

  const began = head.resetAt === null ? "the tenant's start" : `its reset at ${iso(head.resetAt)}`;
  const world =
    head.origin.world === 'restored'
      ? 'a world restored from STATE_DIR'
      : head.fixtures.kind === 'generated'
        ? `the world of seed ${head.fixtures.seed}${head.fixtures.scale ? ` (scale ${w.comment(JSON.stringify(head.fixtures.scale))})` : ''}`
        : "the fake's own fixtures (FIXTURES, below)";
  const about = head.fidelity
    ? [
        `// Shadow mode's differences between the fake and ${w.comment(head.fidelity.upstream)} in the session of client "${w.comment(head.clientId)}", as a test:`,
        `// ${head.fidelity.differing} exchange(s) differed. The session is replayed on a fake as its twin began; where the fake's answer differed,`,
        "// the upstream's is asserted (status, problem code, the members that differed), so this file fails against the",
        '// fake until the fake agrees. Exchanges shadow mode could not compare are skipped, saying why.',
        `// Written by ${w.comment(head.packageName)} ${w.comment(head.version)} (GET /__control/fidelity?format=vitest).`,
        '//',
      ]
    : [];
  const imports = ['afterAll', 'beforeAll', 'describe', ...(w.read('expect') ? ['expect'] : []), 'it'];
  const declared = variables.filter((variable) => w.read(variable.text)).map((variable) => variable.text);
  const out: string[] = [
    ...about,
    `// The session of client "${w.comment(head.clientId)}" since ${began}, replayed as a test: ${head.requests} request(s) and ${head.controls} control change(s).`,
    `// Written by ${w.comment(head.packageName)} ${w.comment(head.version)} (GET /__control/export?format=vitest).`,
    '//',
    `// It starts a fake in this process from ${world}, with the client's settings and the tenant's clock as the`,
    "// session began (the clock frozen: it moves only as the session's did), then replays every step in order, each",
    "// request at the tenant's instant it was made. Each answer is asserted: its status, an error's problem code,",
    "// a success's members (instants, links and what the journal redacted left out). Identifiers the session created",
    '// are read from the replayed answers; those of the starting world are written as they are. No secret or token of',
    '// the session is here: the client gets a secret made up for this replay.',
    '//',
    `// Run it: npm install --save-dev ${w.comment(head.packageName)}@${w.comment(head.version)} vitest, then npx vitest run <this file>.`,
    '// It passes against the version that wrote it; where the fake answers otherwise, the failing step is named.',
    ...(head.notReplayable ? ['//', `// NOT REPLAYED: ${w.comment(head.notReplayable)}.`] : []),
    `import { ${imports.join(', ')} } from 'vitest';`,
    `import { startServer, type FakeServer${head.ownFixtures || snapshots.length > 0 ? ', type World' : ''} } from ${moduleName(head.packageName, w)};`,
    '',
    `const CLIENT_ID = ${w.string(head.clientId)};`,
    "/** Made up by each run of this file: the session's own secret is never exported. */",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the generated file's own template literal
    'const CLIENT_SECRET = `replay-${crypto.randomUUID()}`;',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: as above
    ...(w.read('WRONG_SECRET') ? ['const WRONG_SECRET = `${CLIENT_SECRET}-wrong`;'] : []),
    `const STARTED_AT = ${w.string(iso(head.origin.clockMs))};`,
    '',
    'let fake: FakeServer;',
    "let control: ReturnType<FakeServer['control']['forClient']>;",
    ...(token ? ["let token = '';"] : []),
    ...(w.read('clock') ? ['let clock = Date.parse(STARTED_AT);'] : []),
    ...(declared.length > 0
      ? [
          '// identifiers the session created, read from the replayed answers',
          `let ${declared.map((name) => `${name} = ''`).join(', ')};`,
        ]
      : []),
    ...helpers,
    '',
    `describe${head.notReplayable ? '.skip' : ''}(${w.string(`session of ${head.clientId}`)}, () => {`,
    ...tests,
    '});',
    '',
    ...tail,
  ];
  return out.join('\n');
}
