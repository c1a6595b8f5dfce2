import fc from 'fast-check';
import type { Schemas, World } from '../../src/api/types.js';
import type { ControlStep } from '../../src/records/control-steps.js';
import { keptBody } from '../../src/records/journal-body.js';
import { controlRecord, JournalRecord, type RawRequest } from '../../src/records/journal.js';
import type { SessionToReplay } from '../../src/proof/vitest-export/index.js';
import type { FidelityFindings } from '../../src/proof/vitest-export/fidelity-step.js';
import { PAYLOAD } from './code-in-paths.js';

/** Pieces of text that end, open or turn something in a TypeScript or `.http` file, and text of every other kind. */
const PIECES = [
  '\n',
  '\r',
  '\r\n',
  '\u2028',
  '\u2029',
  '\u0085',
  '\u0000',
  '\u001b[2J',
  '\u202e',
  '\ud800',
  '\udfff',
  '*/',
  '/*',
  '//',
  '`',
  '${',
  '}',
  '{{',
  '}}',
  '{%',
  '"',
  "'",
  '\\',
  '\\u0041',
  '<',
  '>',
  '###',
  '#',
  '@',
  '?',
  '&',
  '=',
  '%',
  '%0A',
  '%E2%80%A8',
  ' ',
  '__proto__',
  'constructor',
  'toString',
  '</script>',
  'answer.status',
  'STEP',
  'expect',
  'fake.url',
  'Bearer x',
  'é',
  '日本語',
  '😀',
  PAYLOAD,
  `\n${PAYLOAD}`,
  `\u2028${PAYLOAD}`,
  `\r${PAYLOAD}`,
  `*/${PAYLOAD}/*`,
  '`+process.exit(1)+`',
  '${process.exit(1)}',
  '"+process.exit(1)+"',
];

/** A string built of hostile pieces, any text, and now and then a long one. */
export const hostile: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...PIECES), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(...PIECES).map((piece) => piece.repeat(500)) },
);

/** Every input slot of a session the vitest and `.http` writers take a value from. */
export interface HostileInputs {
  clientId: string;
  /** The client's secret (`credentials`), as an operator may set any: redacted from every value. */
  secret: string;
  pathSegment: string;
  queryName: string;
  queryValue: string;
  memberName: string;
  memberValue: string;
  contentType: string;
  answerName: string;
  answerValue: string;
  /** A problem code: the upstream's own in shadow mode. */
  code: string;
  faultPath: string;
  stateName: string;
  stateParam: string;
  stateValue: string;
  reason: string;
  pointer: string;
  upstream: string;
  worldValue: string;
  ownFixtures: boolean;
}

/** Every way out of a string, a template, a comment or a line at once, with the payload after each. */
const EVERY_WAY_OUT = [
  `X\n${PAYLOAD}`,
  `\u2028${PAYLOAD}`,
  `\r${PAYLOAD}`,
  `*/${PAYLOAD}/*`,
  '`+process.getBuiltinModule("fs").writeFileSync("RAN","1")+`',
  '${process.getBuiltinModule("fs").writeFileSync("RAN","1")}',
  '"+process.getBuiltinModule("fs").writeFileSync("RAN","1")+"',
  "'+process.getBuiltinModule('fs').writeFileSync('RAN','1')+'",
  '</script> {{$processEnv HOME}} é😀',
].join(' ');

/** The one session with the way out in every slot (a body member named `__proto__`; a secret that reads as code), to run. */
export const EVERY_SLOT: HostileInputs = {
  clientId: EVERY_WAY_OUT,
  secret: 'answer.status',
  pathSegment: EVERY_WAY_OUT,
  queryName: EVERY_WAY_OUT,
  queryValue: EVERY_WAY_OUT,
  memberName: '__proto__',
  memberValue: EVERY_WAY_OUT,
  contentType: EVERY_WAY_OUT,
  answerName: EVERY_WAY_OUT,
  answerValue: EVERY_WAY_OUT,
  code: EVERY_WAY_OUT,
  faultPath: EVERY_WAY_OUT,
  stateName: EVERY_WAY_OUT,
  stateParam: EVERY_WAY_OUT,
  stateValue: EVERY_WAY_OUT,
  reason: EVERY_WAY_OUT,
  pointer: EVERY_WAY_OUT,
  upstream: EVERY_WAY_OUT,
  worldValue: EVERY_WAY_OUT,
  ownFixtures: true,
};

export const hostileInputs: fc.Arbitrary<HostileInputs> = fc.record({
  clientId: hostile,
  secret: hostile,
  pathSegment: hostile,
  queryName: hostile,
  queryValue: hostile,
  memberName: hostile,
  memberValue: hostile,
  contentType: hostile,
  answerName: hostile,
  answerValue: hostile,
  code: hostile,
  faultPath: hostile,
  stateName: hostile,
  stateParam: hostile,
  stateValue: hostile,
  reason: hostile,
  pointer: hostile,
  upstream: hostile,
  worldValue: hostile,
  ownFixtures: fc.boolean(),
});

const START = Date.parse('2026-01-01T00:00:00.000Z');

/** The JSON text of an object with one member (a name JSON.stringify would not keep as a data member: `__proto__`). */
const member = (name: string, value: unknown): string => `{${JSON.stringify(name)}:${JSON.stringify(value)}}`;

function request(
  n: number,
  inputs: HostileInputs,
  fields: Partial<RawRequest>,
  bodies: { request?: string; requestType?: string; response?: string },
): JournalRecord {
  const raw: RawRequest = {
    id: String(n),
    client_id: inputs.clientId,
    method: 'POST',
    path: `/v1/accounts/${inputs.pathSegment}`,
    rawQuery: new URLSearchParams([[inputs.queryName, inputs.queryValue]]).toString(),
    status: 201,
    duration_ms: 1,
    operation_id: 'createAccount',
    code: null,
    fault_id: null,
    applied: true,
    ...fields,
  };
  return new JournalRecord(
    raw,
    { at: START + n * 1000, retryAfter: null, bodyHash: null, itemCount: null, tenantAt: START + n * 1000 },
    {
      request: keptBody(bodies.request, bodies.requestType ?? 'application/json'),
      response: keptBody(bodies.response, 'application/json'),
      authorization: 'bearer',
      credentials: [inputs.secret],
    },
  );
}

/** The records of a session with a hostile value in every slot: requests (JSON, form, text bodies; an error), and each kind of control change. */
export function hostileRecords(inputs: HostileInputs): JournalRecord[] {
  const { memberName, memberValue, answerName, answerValue } = inputs;
  const at = (n: number) => START + n * 1000;
  const control = (n: number, step: ControlStep) => controlRecord(inputs.clientId, step, at(n), at(n));
  const order = { id: 'order-made-1', status: 'PLACED', note: answerValue } as unknown as Schemas['OrderDetails'];
  const world = { accounts: [{ id: 'account-restored', first_name: inputs.worldValue, [memberName]: memberValue }] };
  return [
    request(
      1,
      inputs,
      { operation_id: 'createToken', path: '/oauth2/token', rawQuery: '', status: 200 },
      {
        request: new URLSearchParams([
          ['grant_type', 'client_credentials'],
          ['client_id', inputs.clientId],
          ['client_secret', inputs.secret],
          [memberName, memberValue],
        ]).toString(),
        requestType: 'application/x-www-form-urlencoded',
        response: JSON.stringify({ access_token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln', token_type: 'Bearer' }),
      },
    ),
    request(
      2,
      inputs,
      {},
      {
        request: member(memberName, memberValue),
        response: `{"id":"account-made-1",${member(answerName, answerValue).slice(1)}`,
      },
    ),
    request(
      3,
      inputs,
      { method: 'PATCH', path: '/v1/accounts/account-made-1', status: 422, code: inputs.code },
      { request: member('__proto__', { [memberName]: memberValue }) },
    ),
    request(
      4,
      inputs,
      { method: 'GET', status: 200, operation_id: 'getAccount' },
      {
        request: memberValue,
        requestType: inputs.contentType,
        response: member(answerName, [answerValue, { [answerName]: answerValue }]),
      },
    ),
    request(
      5,
      inputs,
      {
        method: 'GET',
        status: 404,
        code: inputs.code,
        operation_id: 'getShareClass',
        path: `/v1/share-classes/${inputs.pathSegment}`,
      },
      {},
    ),
    request(6, inputs, { method: 'DELETE', status: 0, path: `/v1/orders/${inputs.pathSegment}/` }, {}),
    control(7, {
      kind: 'place_order',
      input: {
        account_id: 'account-made-1',
        isin: memberValue,
        side: 'BUY',
        market: 'PRIMARY',
        amount_of_units: 1,
        value: 1,
      } as Schemas['OrderPlacement'],
      order_id: 'order-made-1',
      answer: order,
    }),
    control(8, {
      kind: 'set_order_status',
      order_id: 'order-made-1',
      status: inputs.stateValue as Schemas['OrderStatus'],
      answer: order,
    }),
    control(9, {
      kind: 'add_fault',
      input: { method: inputs.memberName, path: inputs.faultPath, status: 503, count: 1 },
      fault_id: 'fault-1',
    }),
    control(10, { kind: 'remove_fault', fault_id: inputs.faultPath }),
    control(11, {
      kind: 'provider_state',
      change: {
        state: inputs.stateName,
        params: JSON.parse(member(inputs.stateParam, inputs.stateValue)) as Record<string, unknown>,
        action: 'setup',
      } as Schemas['ProviderStateChange'],
      answer: { accountId: 'account-made-2', [answerName]: answerValue },
    }),
    control(12, {
      kind: 'update_client',
      changes: { settings: { order_progression: inputs.stateValue } } as unknown as Schemas['ClientUpdate'],
    }),
    control(13, { kind: 'restore_state', world: JSON.stringify(world) }),
    control(14, { kind: 'clock', change: { advance_seconds: 5 }, before: at(14), after: at(14) + 5000 }),
    request(
      15,
      inputs,
      { method: 'GET', status: 200, path: '/v1/accounts/account-made-1', operation_id: 'getAccount' },
      { response: JSON.stringify({ data: [{ [answerName]: answerValue }] }) },
    ),
  ];
}

/** The session of `hostileRecords` as the vitest export reads it; with `fidelity`, as shadow mode's file (differences, an exchange not compared). */
export function hostileSession(inputs: HostileInputs, fidelity = false): SessionToReplay {
  const world = {
    accounts: [{ id: 'account-0', first_name: inputs.worldValue, [inputs.memberName]: inputs.memberValue }],
  } as unknown as World;
  const findings: FidelityFindings = {
    upstream: inputs.upstream,
    differences: new Map([
      [
        '2',
        ['missing_field', 'extra_field', 'type', 'value', 'enum_value'].map((kind) =>
          difference(inputs, kind as Schemas['FidelityDifference']['kind']),
        ),
      ],
      ['15', [{ ...difference(inputs, 'value'), upstream: '[redacted]' }]],
    ]),
    notComparable: new Map([['4', inputs.reason]]),
  };
  return {
    clientId: inputs.clientId,
    baseUrl: 'http://127.0.0.1:8080',
    credentials: [inputs.secret],
    span: { records: hostileRecords(inputs), complete: true, reset: undefined },
    origin: {
      world: 'fixtures',
      clockMs: START,
      settings: { order_progression: 'manual', [inputs.stateParam]: inputs.stateValue } as never,
      scopes: ['read:accounts'],
      token_endpoint_auth_method: 'client_secret_post',
    },
    fixtures: inputs.ownFixtures ? { kind: 'own' } : { kind: 'generated', seed: 1, scale: { accounts: 3 } },
    fixturesWorld: () => world,
    packageName: 'investment-api-fake',
    version: '0.0.0-test',
    ...(fidelity && { fidelity: findings }),
  };
}

function difference(inputs: HostileInputs, kind: Schemas['FidelityDifference']['kind']): Schemas['FidelityDifference'] {
  return {
    request_id: '2',
    operation: 'createAccount',
    method: 'POST',
    path: inputs.pathSegment,
    kind,
    pointer: `/${inputs.pointer}/*/${inputs.answerName}`,
    // a member named `__proto__` too, as an upstream's JSON may hold one
    upstream: JSON.parse(
      `{${JSON.stringify(inputs.answerName)}:${JSON.stringify(inputs.answerValue)},"__proto__":${JSON.stringify(inputs.memberValue)}}`,
    ),
    fake: null,
    heading: inputs.reason,
  };
}
