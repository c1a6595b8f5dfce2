import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import { chain } from './chain.js';
import { CONTROL_PREFIX } from './own-paths.js';

/** One step of the pipeline: its name (ARCHITECTURE.md's table names each), what of the request it reads and writes. */
interface StepDeclaration {
  readonly name: string;
  readonly reads: string;
  readonly writes: string;
  /** The path prefix it is mounted at (Express strips it from `req.path` for the step); none: every request. */
  readonly mount?: string;
  /** A slot a satellite fills (src/http/satellite.ts): without the satellite, the step is left out. */
  readonly satellite?: true;
}

/**
 * Every request's steps, in order: `buildApp` makes each by its name and composes them in this order, and nothing
 * else. A step made `undefined` is left out (the answer check but in tests, a satellite's slot without it).
 */
export const REQUEST_STEPS = [
  { name: 'transfer coding', reads: 'Transfer-Encoding', writes: 'a 501 for anything but chunked' },
  { name: 'host', reads: 'Host, Origin', writes: 'a 403 for a host the fake does not answer to' },
  { name: 'meta routes', reads: 'the path', writes: 'the document, /docs, /console' },
  { name: 'request state', reads: 'X-Request-Id', writes: 'state.id; the journal entry and log line on close' },
  { name: 'answer check', reads: 'state.sentBody', writes: 'a report of each answer unlike the document' },
  {
    name: 'shadow mode',
    satellite: true,
    reads: 'the request',
    writes: "the upstream's answer; state.operationId, state.route",
  },
  { name: 'control', mount: CONTROL_PREFIX, reads: 'Authorization, Origin', writes: 'state.controlPartner' },
  { name: 'mcp', satellite: true, mount: `${CONTROL_PREFIX}/mcp`, reads: 'the MCP session', writes: 'the MCP answer' },
  { name: 'route', reads: 'method, path', writes: 'state.operationId, state.route (operation, scopes, params)' },
  { name: 'unsaved write', reads: 'state.route, STATE_DIR', writes: 'a 503 for a write STATE_DIR cannot keep' },
  { name: 'operation', reads: 'state.route', writes: "the operation's own steps, below" },
  { name: 'not found', reads: 'the path', writes: 'a 404' },
] as const satisfies readonly StepDeclaration[];

/** Each operation's own steps, in order (`operation` above runs them): a step with nothing to do goes on at once. */
export const OPERATION_STEPS = [
  { name: 'bearer token', reads: 'Authorization, state.route', writes: 'state.tenant; its faults; a 401 or 403' },
  {
    name: 'parameters',
    reads: 'the query, headers, state.route',
    writes: 'state.query, or a 422, for an operation without a body',
  },
  { name: 'body', reads: 'the body', writes: 'req.body, state.rawBody' },
  { name: 'body bounds', reads: 'req.body', writes: 'a 422 for a body past its budget' },
  { name: 'token request', reads: "the token request's credentials", writes: 'state.tenant; its faults' },
  { name: 'validate', reads: 'params, query, body', writes: 'req.query, req.body as the document types them' },
  { name: 'dispatch', reads: 'state.route, state.query, state.tenant', writes: 'the answer; `after` faults' },
] as const satisfies readonly StepDeclaration[];

type RequestStepName = (typeof REQUEST_STEPS)[number]['name'];
/** The request steps a satellite fills. */
export type SatelliteSlot = Extract<(typeof REQUEST_STEPS)[number], { satellite: true }>['name'];
export type OperationStepName = (typeof OPERATION_STEPS)[number]['name'];

/** A step as made: one middleware, several run as one, or none (left out). */
export type MadeStep = RequestHandler | readonly RequestHandler[] | undefined;

/** The made steps of a declared list, in its order, as one list of middleware. */
export function inOrder<Name extends string>(
  declared: readonly { readonly name: Name }[],
  made: Partial<Record<Name, MadeStep>>,
): RequestHandler[] {
  return declared.flatMap(({ name }) => made[name] ?? []);
}

/**
 * Composes the request's steps on the app, in REQUEST_STEPS' order, then the one error writer. Consecutive steps
 * of the same mount run as one Express layer (`chain`): Express matches each layer's path and wraps each call.
 */
export function composeRequestSteps(
  app: Express,
  made: Record<Exclude<RequestStepName, SatelliteSlot>, MadeStep> & Partial<Record<SatelliteSlot, MadeStep>>,
  errors: ErrorRequestHandler,
): void {
  let layer: { mount: string | undefined; steps: RequestHandler[] } | undefined;
  const flush = (): void => {
    if (!layer) return;
    const handler = chain(layer.steps);
    if (layer.mount === undefined) app.use(handler);
    else app.use(layer.mount, handler);
    layer = undefined;
  };
  for (const step of REQUEST_STEPS as readonly StepDeclaration[]) {
    const steps = inOrder([step as { name: RequestStepName }], made);
    if (steps.length === 0) continue;
    if (layer && layer.mount !== step.mount) flush();
    layer ??= { mount: step.mount, steps: [] };
    layer.steps.push(...steps);
  }
  flush();
  app.use(errors);
}
