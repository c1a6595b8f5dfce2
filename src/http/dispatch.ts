import type { Request, RequestHandler, Response } from 'express';
import type { OperationId } from '../api/types.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import type { OperationCall, OperationHandlers } from './operation.js';
import { baseUrlOf } from './request-context.js';
import { settle, stateOf, type RequestState } from './request-state.js';
import { strike, takeFault } from './faults.js';

/** What of the instance (`FakeContext`) this file's steps and calls use. */
type InstanceParts = Pick<FakeContext, 'linkSigner' | 'options' | 'tenants' | 'tokens'>;

/** Any operation's answer, as the adapter writes it (each handler's own type is checked where it is written). */
interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  contentType?: string;
}
type AnyHandler = (call: OperationCall<OperationId>) => Answer | Promise<Answer>;

function callOf(req: Request, ctx: InstanceParts, tenant: Tenant | undefined): OperationCall<OperationId> {
  return {
    // Checked against the operation's schemas (every path parameter of the document is a string), so they are the
    // types the document says.
    path: (stateOf(req).route?.pathParams ?? {}) as never,
    query: (stateOf(req).query ?? req.query) as never,
    body: req.body as never,
    get baseUrl() {
      return baseUrlOf(req, ctx);
    },
    get tenant(): Tenant {
      if (!tenant)
        throw new Error(
          `${stateOf(req).operationId} has no authenticated tenant: is it secured by oauth2 in the document?`,
        );
      return tenant;
    },
    controlPartner: stateOf(req).controlPartner,
    header: (name) => req.get(name),
    attribute: (proven) => {
      stateOf(req).tenant = proven;
    },
  };
}

/**
 * The one adapter between Express and the handlers: hands the operation's handler its typed call and writes its
 * typed answer. (Errors are written by the error middleware alone.)
 */
export function dispatch(ctx: InstanceParts, handlers: OperationHandlers): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(req);
    if (state.operationId === undefined) return next();
    const handler = handlers[state.operationId] as unknown as AnyHandler;
    // the registry handed the tenant out settled; an injected delay since may have let its clock move on
    state.tenant?.settle();
    const answer = handler(callOf(req, ctx, state.tenant));
    // most handlers answer at once: only an answer still to come is awaited (Express handles the promise's rejection)
    return answer instanceof Promise
      ? answer.then((value) => answered(req, res, state, value))
      : answered(req, res, state, answer);
  };

  function answered(req: Request, res: Response, state: RequestState, answer: Answer): Promise<void> | void {
    state.applied = true;
    // a fault after the operation: what it did stays done, its answer is delayed, replaced or lost
    const fault = takeFault(state.tenant, req, 'after');
    if (fault) {
      return strike(fault, req, res).then((outcome) => {
        if (outcome !== 'dropped') written(res, state, answer);
      });
    }
    written(res, state, answer);
  }

  function written(res: Response, state: RequestState, answer: Answer): void {
    write(res, state, answer);
    settle(state);
  }
}

/**
 * Writes a handler's answer: bytes as they are; JSON with the headers and bytes res.json writes (the app sets no json
 * replacer, spaces or escape). JSON is encoded once, to a Buffer: the socket writes it as it is, and the journal keeps
 * it outside the JS heap, where the garbage collector never copies it.
 */
function write(res: Response, state: RequestState, answer: Answer): void {
  res.statusCode = answer.status;
  if (answer.headers) res.set(answer.headers);
  const { body } = answer;
  if (body === undefined) return void res.end();
  if (Buffer.isBuffer(body)) return void res.type(answer.contentType ?? 'application/octet-stream').send(body);
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data)) state.itemCount = data.length;
  const bytes = Buffer.from(JSON.stringify(body));
  res.setHeader('Content-Type', JSON_UTF8);
  res.setHeader('Content-Length', bytes.length);
  // a HEAD request's answer has no body: Node's response leaves it out
  res.end(bytes);
}

const JSON_UTF8 = 'application/json; charset=utf-8';
