import type { ControlStep } from '../../records/control-steps.js';
import type { TypeScriptWriter } from '../code-writer.js';
import { expectedOf } from './expected.js';
import { stemOf } from './identifiers.js';
import type { IssuedIdentifiers } from './identifiers.js';
import { CLIENT_ID } from './request-step.js';
import { answerOf, assignment, statement, type ReplayStep, type Statement } from './statements.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** A snapshot the session loaded, written once at the end of the file as `SNAPSHOT_<n>`. */
export interface Snapshot {
  name: string;
  world: string;
}

/**
 * A change the control plane made in the session, at its place: the same call on the replay's control client, its
 * identifiers as variables (an order it placed, a fault it added: read from the replay's answer).
 */
export function controlStep(
  step: ControlStep,
  tenantAt: number | null,
  n: number,
  ids: IssuedIdentifiers,
  snapshots: Snapshot[],
  w: TypeScriptWriter,
): ReplayStep {
  const id = (value: string): string => w.literal(ids.written(value));
  const made = (title: string, statements: Statement[], extra: Partial<ReplayStep> = {}): ReplayStep => ({
    title: `${n}. control: ${title}`,
    tenantAt,
    statements,
    ...extra,
  });
  const control = (call: () => string) => (): string => (w.uses('control'), `control.${call()}`);
  /** The control plane's answer asserted as a request's is (`expectedOf`), the identifier it issued read first. */
  const answered = (call: () => string, answer: unknown, issued?: string): Statement[] => {
    const expected = expectedOf(answer, ids, new Set(issued === undefined ? [] : [issued]));
    const read =
      issued === undefined
        ? []
        : [assignment(w, ids.add(issued, stemFor(step.kind)).text, () => (w.uses('answer'), 'answer.id'), false)];
    const asserted =
      expected === undefined
        ? []
        : [
            statement(
              w,
              () => (w.uses('expect', 'answer', 'STEP'), `expect(answer, STEP).toMatchObject(${w.literal(expected)});`),
            ),
          ];
    return [answerOf(w, control(call)), ...read, ...asserted];
  };
  switch (step.kind) {
    case 'clock': {
      const set = step.change.now !== undefined;
      // the replay's clock stays frozen: the session's moves are replayed as moves to the instants they reached
      const moved = step.change.advance_seconds ?? (step.after - step.before) / 1000;
      const title = set
        ? `clock set to ${iso(step.after)}`
        : moved === 0
          ? `clock ${step.change.frozen ? 'frozen' : 'running'}`
          : `clock advanced ${moved} s`;
      return made(title, [], { tenantAt: step.after, clock: set ? 'set' : 'advance' });
    }
    case 'place_order':
      return made(
        'place an order',
        answered(() => `placeOrder(${w.literal(ids.written(step.input))})`, step.answer, step.order_id),
      );
    case 'advance_order':
      return made(
        `advance order ${shown(step.order_id, ids)}`,
        answered(() => `advanceOrder(${id(step.order_id)})`, step.answer),
      );
    case 'set_order_status':
      return made(
        `order ${shown(step.order_id, ids)} forced to ${step.status}`,
        answered(() => `setOrderStatus(${id(step.order_id)}, ${w.string(step.status)})`, step.answer),
      );
    case 'add_fault': {
      const added = statement(w, () => `await ${control(() => `addFault(${w.literal(ids.written(step.input))})`)()}`);
      const variable = ids.add(step.fault_id, 'fault').text;
      // the fault is added whether or not a later step names it
      return made('add a fault', [
        { code: `${variable} = (${added.code}).id;`, reads: added.reads, sets: variable, otherwise: `${added.code};` },
      ]);
    }
    case 'remove_fault':
      return made(`remove fault ${shown(step.fault_id, ids)}`, [
        statement(w, () => `await ${control(() => `removeFault(${id(step.fault_id)})`)()};`),
      ]);
    case 'clear_faults':
      return made('clear the faults', [statement(w, () => `await ${control(() => 'clearFaults()')()};`)]);
    case 'add_payment_method':
      return made(
        `add payment method details to account ${shown(step.account_id, ids)}`,
        answered(
          () => `addPaymentMethodDetails(${id(step.account_id)}, ${w.literal(ids.written(step.input))})`,
          step.answer,
          step.id,
        ),
      );
    case 'provider_state': {
      // the values it injects name the records it made (`accountId`): read from the replay's answer
      const made_ = Object.entries((step.answer ?? {}) as Record<string, unknown>).filter(
        (entry): entry is [string, string] =>
          /Id$/.test(entry[0]) &&
          typeof entry[1] === 'string' &&
          !ids.isStarting(entry[1]) &&
          !ids.variableOf(entry[1]),
      );
      const expected = expectedOf(step.answer, ids, new Set(made_.map(([, value]) => value)));
      const call = answerOf(
        w,
        control(() => `providerState(${w.literal(ids.written(step.change))})`),
      );
      const reads = made_.map(([key, value]) =>
        assignment(
          w,
          ids.add(value, stemOf(key.replace(/Id$/, ''))).text,
          () => (w.uses('answer'), `answer[${w.string(key)}]`),
          false,
        ),
      );
      const asserted =
        expected === undefined
          ? []
          : [
              statement(
                w,
                () => (
                  w.uses('expect', 'answer', 'STEP'), `expect(answer, STEP).toMatchObject(${w.literal(expected)});`
                ),
              ),
            ];
      return made(`provider state: ${step.change.state}`, [call, ...reads, ...asserted]);
    }
    case 'update_client':
      return made('change the client', [
        statement(
          w,
          () =>
            `await ${control(() => `updateClient(${w.code(CLIENT_ID)}, ${w.literal(ids.written(step.changes))})`)()};`,
        ),
      ]);
    case 'restore_state': {
      const snapshot = { name: `SNAPSHOT_${snapshots.length + 1}`, world: step.world };
      snapshots.push(snapshot);
      ids.addStarting(JSON.parse(step.world));
      return made(`load a snapshot (${snapshot.name}, below)`, [
        statement(w, () => `await ${control(() => `restore(${snapshot.name} as World)`)()};`),
      ]);
    }
  }
}

const shown = (value: string, ids: IssuedIdentifiers): string => {
  const variable = ids.variableOf(value);
  return variable ? `{${variable.text}}` : value;
};

const stemFor = (kind: ControlStep['kind']): string => (kind === 'add_payment_method' ? 'paymentMethod' : 'order');
