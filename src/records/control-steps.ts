import type { ApiScope, ClientSettings, Schemas, TokenEndpointAuthMethod } from '../api/types.js';

/**
 * A change the control plane (its answer kept where a replay asserts it: an order's, a payment method's) (or the library's same calls) made to a tenant's world or clock: what a replay of the
 * tenant's session needs beside its requests (CONTRACT 15, "A session as a runnable test"). Kept in the journal in
 * order with the requests, never shown as partner traffic. Identifiers the change issued are kept so that later
 * steps naming them can be written with the replay's own.
 */
export type ControlStep =
  /** `before`/`after`: the tenant's clock in ms around the change (an advance replays as `after - before`). */
  | { kind: 'clock'; change: Schemas['ClockChange']; before: number; after: number }
  | { kind: 'place_order'; input: Schemas['OrderPlacement']; order_id: string; answer: Schemas['OrderDetails'] }
  | { kind: 'advance_order'; order_id: string; answer: Schemas['OrderDetails'] }
  | { kind: 'set_order_status'; order_id: string; status: Schemas['OrderStatus']; answer: Schemas['OrderDetails'] }
  | { kind: 'add_fault'; input: Schemas['FaultCreate']; fault_id: string }
  | { kind: 'remove_fault'; fault_id: string }
  | { kind: 'clear_faults' }
  | {
      kind: 'add_payment_method';
      account_id: string;
      input: Schemas['PaymentMethodDetailsCreate'];
      id: string;
      answer: Schemas['PaymentMethodDetails'];
    }
  | { kind: 'update_client'; changes: Schemas['ClientUpdate'] }
  /** A Pact provider state made true (`POST /__control/pact/provider-states`, setup): the records it needs. */
  | { kind: 'provider_state'; change: Schemas['ProviderStateChange']; answer: unknown }
  /** A snapshot loaded (`PUT /__control/state`), as the JSON text it was: the store changes the object it is handed. */
  | { kind: 'restore_state'; world: string };

/** What a step holds in memory, for the journal's byte budgets: a restored snapshot is most of it. */
export const controlStepBytes = (step: ControlStep): number =>
  step.kind === 'restore_state' ? 2 * step.world.length + 64 : 2 * JSON.stringify(step).length;

/**
 * Where a tenant's span (its journal since its last reset) began: its world from the fixtures, or one restored from
 * STATE_DIR, which a replay cannot rebuild; the tenant's clock and settings at that instant. Faults are none: a reset
 * clears them, and a new tenant has none. A seed and settings are a few bytes: nothing is copied per reset.
 */
export interface SpanOrigin {
  world: 'fixtures' | 'restored';
  /** The tenant's clock at that instant, in ms. */
  clockMs: number;
  settings: ClientSettings;
  scopes: ApiScope[];
  token_endpoint_auth_method: TokenEndpointAuthMethod;
}

/** How the fixtures were made: generated from a seed (and a scale), or the operator's own world. */
export type FixturesSource =
  | { kind: 'generated'; seed: number; scale?: { accounts?: number; orders?: number } }
  | { kind: 'own' };
