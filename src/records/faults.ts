import { DomainError } from '../api/errors.js';
import { compilePathPattern } from './path-pattern.js';
import type { Schemas } from '../api/types.js';

export type FaultCreate = Schemas['FaultCreate'];
export type Fault = Schemas['Fault'];
export type FaultPhase = Schemas['FaultPhase'];

/** mulberry32: a tiny seeded generator, so that probabilistic faults repeat run after run. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface ActiveFault {
  view: Fault;
  matchesPath: (path: string) => boolean;
  draw: () => number;
  /** Draws made so far: a restored fault goes on with the same sequence. */
  draws: number;
}

/** A fault book as a restart keeps it (STATE_DIR): the faults, the draws each made, the next id. */
export interface FaultBookState {
  next_id: number;
  faults: { fault: Fault; draws: number }[];
}

/**
 * The most faults one tenant may hold at once. A suite needs a handful (one per behaviour it tests, cleared by a
 * reset); each costs a compiled path pattern and a generator, and without a cap one partner's loop could take the
 * shared sandbox's memory (10,000 took +78 MB). Stated in docs/readiness.md and the document (addFault).
 */
const MAX_FAULTS_PER_TENANT = 100;

/** One tenant's injected faults, oldest first. */
export class FaultBook {
  private faults: ActiveFault[] = [];
  private nextId = 1;
  private changes = 0;

  /** Moves on with every change of what a restart keeps (a fault added or removed, a draw, a count used). */
  get revision(): number {
    return this.changes;
  }

  add(input: FaultCreate): Fault {
    if (this.faults.length >= MAX_FAULTS_PER_TENANT) {
      throw new DomainError(
        409,
        'limit_reached',
        `This tenant holds ${this.faults.length} faults, the most one tenant may hold (${MAX_FAULTS_PER_TENANT}); nothing was added. Remove some (DELETE /__control/faults/{fault_id}, DELETE /__control/faults) or reset the tenant.`,
      );
    }
    if (input.status === undefined && input.latency_ms === undefined && !input.drop) {
      throw new DomainError(422, 'fault_without_effect', 'A fault needs a status, a latency_ms or drop: true.', [
        { location: 'body', path: '/status', message: 'one of status, latency_ms, drop is required' },
      ]);
    }
    const view: Fault = {
      id: `fault-${this.nextId++}`,
      method: input.method?.toUpperCase() ?? null,
      path: input.path ?? null,
      status: input.status ?? null,
      retry_after_seconds:
        input.status === 429 || input.status === 503
          ? (input.retry_after_seconds ?? 1)
          : (input.retry_after_seconds ?? null),
      latency_ms: input.latency_ms ?? null,
      drop: input.drop ?? false,
      remaining: input.count ?? null,
      probability: input.probability ?? 1,
      seed: input.seed ?? 1,
      phase: input.phase ?? 'before',
    };
    this.faults.push(FaultBook.activate(view, 0));
    this.changes++;
    return { ...view };
  }

  private static activate(view: Fault, draws: number): ActiveFault {
    const matchesPath = view.path === null ? () => true : compilePathPattern(view.path);
    const random = seededRandom(view.seed);
    for (let i = 0; i < draws; i++) random();
    const fault: ActiveFault = {
      view,
      matchesPath,
      draws,
      draw: () => {
        fault.draws++;
        return random();
      },
    };
    return fault;
  }

  exportState(): FaultBookState {
    return { next_id: this.nextId, faults: this.faults.map((f) => ({ fault: { ...f.view }, draws: f.draws })) };
  }

  restoreState(state: FaultBookState): void {
    this.nextId = state.next_id;
    this.faults = state.faults.map(({ fault, draws }) => FaultBook.activate({ ...fault }, draws));
    this.changes++;
  }

  get size(): number {
    return this.faults.length;
  }

  list(): Fault[] {
    return this.faults.map((f) => ({ ...f.view }));
  }

  remove(id: string): void {
    const before = this.faults.length;
    this.faults = this.faults.filter((f) => f.view.id !== id);
    if (this.faults.length === before) throw new DomainError(404, 'not_found', `Fault "${id}" was not found.`);
    this.changes++;
  }

  clear(): void {
    if (this.faults.length > 0) this.changes++;
    this.faults = [];
  }

  /**
   * The fault a request gets at this phase, if any: the oldest of the phase that matches and wins its draw; a counted
   * fault is used up.
   */
  take(method: string, path: string, phase: FaultPhase = 'before'): Fault | undefined {
    for (const fault of this.faults) {
      const { view } = fault;
      if (view.phase !== phase || (view.method !== null && view.method !== method) || !fault.matchesPath(path))
        continue;
      if (view.probability < 1) this.changes++;
      if (view.probability < 1 && fault.draw() >= view.probability) continue;
      if (view.remaining !== null) this.changes++;
      if (view.remaining !== null && --view.remaining === 0) this.faults = this.faults.filter((f) => f !== fault);
      return { ...view };
    }
    return undefined;
  }
}
