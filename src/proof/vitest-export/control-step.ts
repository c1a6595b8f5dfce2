import type { ControlStep } from '../../records/control-steps.js';
import { literal } from './code.js';
import { expectedOf } from './expected.js';
import { stemOf } from './identifiers.js';
import type { IssuedIdentifiers } from './identifiers.js';
import type { ReplayStep } from './request-step.js';

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
export function controlStep(step: ControlStep, tenantAt: number | null, n: number, ids: IssuedIdentifiers, snapshots: Snapshot[]): ReplayStep {
  const id = (value: string): string => literal(ids.written(value));
  const made = (title: string, lines: string[], extra: Partial<ReplayStep> = {}): ReplayStep => ({ title: `${n}. control: ${title}`, tenantAt, lines, ...extra });
  /** The control plane's answer asserted as a request's is (`expectedOf`), the identifier it issued read first. */
  const answered = (call: string, answer: unknown, issued?: string): string[] => {
    const expected = expectedOf(answer, ids, new Set(issued === undefined ? [] : [issued]));
    const read = issued === undefined ? [] : [`${ids.add(issued, stemFor(step.kind)).name} = answer.id;`];
    return [`const answer = await ${call};`, ...read, ...(expected === undefined ? [] : [`expect(answer, STEP).toMatchObject(${literal(expected)});`])];
  };
  switch (step.kind) {
    case 'clock': {
      const set = step.change.now !== undefined;
      // the replay's clock stays frozen: the session's moves are replayed as moves to the instants they reached
      const moved = step.change.advance_seconds ?? (step.after - step.before) / 1000;
      const title = set ? `clock set to ${iso(step.after)}` : moved === 0 ? `clock ${step.change.frozen ? 'frozen' : 'running'}` : `clock advanced ${moved} s`;
      return made(title, [], { tenantAt: step.after, clock: set ? 'set' : 'advance' });
    }
    case 'place_order':
      return made('place an order', answered(`control.placeOrder(${literal(ids.written(step.input))})`, step.answer, step.order_id));
    case 'advance_order':
      return made(`advance order ${shown(step.order_id, ids)}`, answered(`control.advanceOrder(${id(step.order_id)})`, step.answer));
    case 'set_order_status':
      return made(`order ${shown(step.order_id, ids)} forced to ${step.status}`, answered(`control.setOrderStatus(${id(step.order_id)}, ${literal(step.status)})`, step.answer));
    case 'add_fault': {
      const input = literal(ids.written(step.input));
      const variable = ids.add(step.fault_id, 'fault');
      return made('add a fault', [`${variable.name} = (await control.addFault(${input})).id;`]);
    }
    case 'remove_fault':
      return made(`remove fault ${shown(step.fault_id, ids)}`, [`await control.removeFault(${id(step.fault_id)});`]);
    case 'clear_faults':
      return made('clear the faults', ['await control.clearFaults();']);
    case 'add_payment_method':
      return made(
        `add payment method details to account ${shown(step.account_id, ids)}`,
        answered(`control.addPaymentMethodDetails(${id(step.account_id)}, ${literal(ids.written(step.input))})`, step.answer, step.id),
      );
    case 'provider_state': {
      // the values it injects name the records it made (`accountId`): read from the replay's answer
      const call = `control.providerState(${literal(ids.written(step.change))})`;
      const made_ = Object.entries((step.answer ?? {}) as Record<string, unknown>).filter(
        (entry): entry is [string, string] => /Id$/.test(entry[0]) && typeof entry[1] === 'string' && !ids.isStarting(entry[1]) && !ids.variableOf(entry[1]),
      );
      const expected = expectedOf(step.answer, ids, new Set(made_.map(([, value]) => value)));
      const reads = made_.map(([key, value]) => `${ids.add(value, stemOf(key.replace(/Id$/, ''))).name} = answer[${literal(key)}];`);
      return made(`provider state: ${step.change.state}`, [
        `const answer = await ${call};`,
        ...reads,
        ...(expected === undefined ? [] : [`expect(answer, STEP).toMatchObject(${literal(expected)});`]),
      ]);
    }
    case 'update_client':
      return made('change the client', [`await control.updateClient(CLIENT_ID, ${literal(ids.written(step.changes))});`]);
    case 'restore_state': {
      const snapshot = { name: `SNAPSHOT_${snapshots.length + 1}`, world: step.world };
      snapshots.push(snapshot);
      ids.addStarting(JSON.parse(step.world));
      return made(`load a snapshot (${snapshot.name}, below)`, [`await control.restore(${snapshot.name} as World);`]);
    }
  }
}

const shown = (value: string, ids: IssuedIdentifiers): string => {
  const variable = ids.variableOf(value);
  return variable ? `{${variable.name}}` : value;
};

const stemFor = (kind: ControlStep['kind']): string => (kind === 'add_payment_method' ? 'paymentMethod' : 'order');
