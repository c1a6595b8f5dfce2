import type { components } from './schema.js';

/**
 * A control-plane call answered with an error: its status and, when the fake sent one, its problem. One class for
 * the library's control client and the console (which bundles this file: it imports only the generated types, no node).
 */
export class ControlError extends Error {
  constructor(
    readonly status: number,
    readonly problem: components['schemas']['Problem'] | undefined,
  ) {
    super(`control plane answered ${status}${problem ? `: ${problem.code}: ${problem.detail}` : ''}`);
    this.name = 'ControlError';
  }

  /** The guard refused the token: a wrong CONTROL_TOKEN, or a partner's token that expired or is not this fake's. */
  get wrongControlToken(): boolean {
    return this.status === 401;
  }
}
