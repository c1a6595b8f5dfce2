import type { Request } from 'express';
import type { OperationId } from '../api/types.js';
import type { Tenant } from '../domain/tenants.js';
import type { DocumentedPath } from '../records/journal.js';
import type { RouteMatch } from './route-match.js';

/**
 * What the pipeline learns about one request, written by the step that learns it and read by the ones after: the
 * observer (journal, log), faults, the handler adapter and the error renderer. Built once, first in the pipeline.
 */
export interface RequestState {
  /** Also the `X-Request-Id` header; absent on the fake's own paths (control plane, docs), which are not journaled. */
  readonly id: string | undefined;
  /** The operation the document routes the request to (a forwarded request's too, in shadow mode). */
  operationId?: OperationId;
  /** What the route step found: the operation as the later steps read it, its path parameters (decoded). */
  route?: RouteMatch;
  /** The query as the parameter check coerced it (src/http/parameter-check.ts); else the validator's `req.query`. */
  query?: Record<string, unknown>;
  /** The client whose token, or whose token request's credentials, verified: never a client a request merely names. */
  tenant?: Tenant;
  /**
   * A control call made with a partner's own access token (scope `control`): the one tenant it may act on. Absent
   * for the operator (CONTROL_TOKEN, or an open control plane).
   */
  controlPartner?: Tenant;
  /** The raw request body: the journal keeps its beginning (secrets redacted). */
  rawBody?: Buffer;
  /** The body res.end wrote: the journal keeps its beginning, as it is (`records/journal-body.ts`); the answer check reads it. */
  sentBody?: string | Buffer;
  /**
   * Shadow mode: the client's credentials the upstream's answer may carry (its secret, its tokens), which the journal
   * hides wherever they appear; an upstream's answer is also redacted by name, whatever its operation.
   */
  credentials?: readonly string[];
  /** Items of a list answer. */
  itemCount?: number;
  /** The problem or OAuth error code answered. */
  code?: string;
  /** A path the document does not have but nearly spells: the documented one, and how the request's differs. */
  documentedPath?: DocumentedPath;
  faultId?: string;
  /** The operation ran and succeeded: its write, if it makes one, is applied, whatever answer the client then got. */
  applied?: boolean;
  /** The request's work is over: answered, refused, or dropped (set by the steps that end a request). */
  settled?: boolean;
  /**
   * What waits for `settled` (http/observe.ts): a client that left early (a timeout during an injected delay) does
   * not stop the operation, so its journal entry is written once the operation has run and says what was applied.
   */
  whenSettled?: () => void;
}

const STATE = Symbol('investment-api-fake.request-state');

type WithState = Request & { [STATE]?: RequestState };

export function beginRequestState(req: Request, id: string | undefined): RequestState {
  const state: RequestState = { id };
  (req as WithState)[STATE] = state;
  return state;
}

/** The request's state; a request that arrived before the first step (never in practice) gets an empty one. */
export const stateOf = (req: Request): RequestState => (req as WithState)[STATE] ?? beginRequestState(req, undefined);

/** The request's work is over (answered, refused or dropped): what waited for it runs now. */
export function settle(state: RequestState): void {
  state.settled = true;
  const waiting = state.whenSettled;
  state.whenSettled = undefined;
  waiting?.();
}
