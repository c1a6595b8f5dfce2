import type { Request, RequestHandler, Response } from 'express';
import type { OperationId } from '../api/types.js';
import type { FakeContext } from '../context.js';
import type { Tenant } from '../domain/tenants.js';
import type { OperationCall, OperationHandlers } from './operation.js';
import { baseUrlOf } from './request-context.js';
import { settle, stateOf, type RequestState } from './request-state.js';
import { routeOf } from './route.js';
import { answerSerializer, type Serialize } from './serializers.js';
import { strike, takeFault } from './faults.js';

/** Any operation's answer, as the adapter writes it (each handler's own type is checked where it is written). */
interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  contentType?: string;
}
type AnyHandler = (call: OperationCall<OperationId>) => Answer | Promise<Answer>;

function callOf(req: Request, ctx: FakeContext, tenant: Tenant | undefined): OperationCall<OperationId> {
  return {
    // Shaped and coerced by the validator against the operation's schemas, so they are the types the document says.
    path: (routeOf(req)?.pathParams ?? {}) as never,
    query: (stateOf(req).query ?? req.query) as never,
    body: req.body as never,
    get baseUrl() {
      return baseUrlOf(req, ctx);
    },
    get tenant(): Tenant {
      if (!tenant) throw new Error(`${stateOf(req).operationId} has no authenticated tenant: is it secured by oauth2 in the document?`);
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
export function dispatch(ctx: FakeContext, handlers: OperationHandlers, written?: (req: Request, status: number, text: string) => void): RequestHandler {
  // Compiled serializers only when answers are not validated: the validator reads them through res.json.
  const serializerOf: SerializerOf = ctx.options.validateResponses ? () => undefined : (id: OperationId, status: number) => answerSerializer(ctx.api.document, id, status);
  return async (req, res, next) => {
    const state = stateOf(req);
    if (state.operationId === undefined) return next();
    const handler = handlers[state.operationId] as unknown as AnyHandler;
    // the request's work starts: what the tenant's clock implies (orders' steps, investors' orders) is taken first
    state.tenant?.settle();
    const answer = await handler(callOf(req, ctx, state.tenant));
    state.applied = true;
    // a fault after the operation: what it did stays done, its answer is delayed, replaced or lost
    const fault = takeFault(state.tenant, req, 'after');
    if (fault && (await strike(fault, req, res)) === 'dropped') return;
    write(res, state, answer, serializerOf);
    settle(state);
  };
}

type SerializerOf = (id: OperationId, status: number) => Serialize | undefined;

/** Writes a handler's answer: bytes as they are, JSON by the operation's compiled serializer where there is one. */
function write(res: Response, state: RequestState, answer: Answer, serializerOf: SerializerOf): void {
  res.status(answer.status);
  if (answer.headers) res.set(answer.headers);
  const { body } = answer;
  if (body === undefined) return void res.end();
  if (Buffer.isBuffer(body)) return void res.type(answer.contentType ?? 'application/octet-stream').send(body);
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data)) state.itemCount = data.length;
  const serialize = serializerOf(state.operationId!, answer.status);
  if (!serialize) return void res.json(body);
  // as res.json does, with the compiled serializer (the app sets no json replacer, spaces or escape)
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(serialize(body));
}
