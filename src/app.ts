import express, { Router, type Express, type RequestHandler } from 'express';
import type { FakeOptions } from './config.js';
import { createContext, logStartWarnings, type FakeContext } from './context.js';
import { controlGuard } from './control/guard.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { shadowMode } from './shadow/shadow-mode.js';
import { errorMiddleware, routeNotFound } from './http/errors.js';
import { requestHints } from './http/request-hints.js';
import { authenticateBearer, authenticateTokenRequest, bearerTenant } from './http/authenticate.js';
import { bodyParsers, hasBody, receiveBody } from './http/body.js';
import { fastReadOf } from './http/fast-parameters.js';
import { boundedBody } from './http/body-bounds.js';
import { dispatch } from './http/dispatch.js';
import { compileRoutes, type RouteMatch } from './http/route.js';
import { chain } from './http/chain.js';
import { stateOf } from './http/request-state.js';
import type { OperationId } from './api/types.js';
import { authHandlers } from './http/handlers/auth.js';
import { accountHandlers } from './http/handlers/accounts.js';
import { walletHandlers } from './http/handlers/wallets.js';
import { paymentMethodHandlers } from './http/handlers/payment-method-details.js';
import { orderHandlers } from './http/handlers/orders.js';
import { assetHandlers } from './http/handlers/assets.js';
import { shareClassHandlers } from './http/handlers/share-classes.js';
import { documentHandlers } from './http/handlers/documents.js';
import { instanceHandlers } from './control/instance.js';
import { clientHandlers } from './control/clients.js';
import { worldHandlers } from './control/world.js';
import { orderControlHandlers } from './control/orders.js';
import { faultHandlers } from './control/faults.js';
import { journalHandlers } from './control/journal.js';
import { pactHandlers } from './control/pact.js';
import { fidelityHandlers } from './shadow/fidelity-handlers.js';
import { operationsOf, servedDocument, type AnswerMismatch } from './api/document.js';
import { answerCheck } from './http/answer-check.js';
import type { OperationHandlers } from './http/operation.js';
import {
  metadataOnce,
  operationValidator,
  requestAsksNothing,
  takesNothing,
  type OperationValidator,
} from './http/validator.js';
import { applyShim, loadValidatorInternal, type LoadValidatorInternal } from './http/validator-internals.js';
import { skipMetaSchemaUnlessChecked } from './http/meta-schema-shim.js';
import { keepSentBodies, requestIds, requestObserver } from './http/observe.js';
import { hostGuard, hostPolicy } from './http/host-guard.js';
import { transferEncodingGuard } from './http/transfer-encoding.js';
import { audiencesOf, baseUrlOf, urlParts } from './http/request-context.js';
import { docsRoutes } from './http/docs.js';
import { refuseUnsavedWrite } from './http/state-not-saved.js';
import { consoleRoutes } from './http/console.js';
import { CONTROL_PREFIX, isPagePath } from './http/own-paths.js';

/**
 * Every operation's handler: the API's a file per tag of the document (`http/handlers/<tag>.ts`), the control plane's
 * a file per what it acts on (`control/`); test/unit/handler-files.test.ts holds each operation to its file.
 */
function operationHandlers(ctx: FakeContext): OperationHandlers {
  return {
    ...authHandlers(ctx),
    ...accountHandlers,
    ...walletHandlers,
    ...paymentMethodHandlers,
    ...orderHandlers,
    ...assetHandlers,
    ...shareClassHandlers,
    ...documentHandlers(ctx),
    ...instanceHandlers(ctx),
    ...clientHandlers(ctx),
    ...worldHandlers(ctx),
    ...orderControlHandlers(ctx),
    ...faultHandlers(ctx),
    ...journalHandlers(ctx),
    ...pactHandlers(ctx),
    ...fidelityHandlers(ctx),
  };
}

/** Fails at startup when the document has an operation without a handler (the type system catches the reverse). */
function checkEveryOperationHandled(ctx: FakeContext, handlers: OperationHandlers): void {
  const missing = operationsOf(ctx.api.document).filter((op) => !(op.operationId in handlers));
  if (missing.length > 0)
    throw new Error(`Operations without a handler: ${missing.map((op) => op.operationId).join(', ')}`);
}

/**
 * The spec, the docs and the console, entered only by paths that may be theirs. The docs router is made with the app
 * (its init script names the default client as it is at each request); the rest of the router on its first request.
 */
function metaRoutes(ctx: FakeContext): RequestHandler {
  const docs = docsRoutes(ctx);
  const served = servedDocument(ctx.api);
  let router: Router | undefined;
  return (req, res, next) => {
    if (!isPagePath(req.path)) return next();
    // The document: its own spelling, no trailing slash, GET and HEAD only (in a router of their own, an OPTIONS
    // request would get that router's automatic answer instead of going on to a 404).
    if (req.method === 'GET' || req.method === 'HEAD') {
      // `servers` names this fake (its base URL, as the token's issuer has it), so a generated client calls it
      if (req.path === '/openapi.json') return void res.type('application/json').send(served(baseUrlOf(req, ctx)).json);
      if (req.path === '/openapi.yaml') return void res.type('application/yaml').send(served(baseUrlOf(req, ctx)).yaml);
    }
    if (!router) {
      router = Router({ strict: true, caseSensitive: true });
      router.use(docs);
      router.use(consoleRoutes());
    }
    router(req, res, next);
  };
}

/** Parts of the pipeline a test or a benchmark may leave out or change, to compare (the defaults: all on, as shipped). */
export interface PipelineOptions {
  /** The fast path of reads with simple parameters (src/http/fast-parameters.ts); off: every request to the validator. */
  fastReads?: boolean;
  /** Where the validator shims find the library's internals (a test gives them changed ones). */
  validatorInternals?: LoadValidatorInternal;
}

/**
 * The request pipeline, top to bottom: transfer coding (anything but chunked refused) → Host → meta routes (spec,
 * docs, console) → request state, journal and log → control guard → route (the document's operation) → bearer token
 * (the proven client, then its injected faults) → [a read with simple parameters: its fast check, else] body parsers
 * → body bounds → token request's client (and its faults) → validate → the operation's handler → one error
 * middleware. With `validateResponses` (tests), each answer is checked against the document after it is sent: the
 * path is the same. The handlers are this API's unless given: a test of the pipeline gives its own with a document of
 * its own (`ctx.api`).
 *
 * Express sees four layers: the front (transfer coding, host, meta routes, observer), the control guard (mounted at
 * /__control, as its paths are relative to it), the operation's steps, the error middleware. The route step finds
 * the operation once (src/http/route.ts); each operation has its own chain of steps with its own validator
 * (src/http/validator.ts).
 */
export function buildApp(
  ctx: FakeContext,
  handlers: OperationHandlers = operationHandlers(ctx),
  pipeline: PipelineOptions = {},
): Express {
  checkEveryOperationHandled(ctx, handlers);
  const { validateResponses } = ctx.options;

  const app = express();
  app.disable('x-powered-by');
  // paths match as written, case and every slash (CONTRACT 15): Express's own mounts (/__control, its MCP endpoint)
  // as the route step does
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  // queries are data (CONTRACT 16): node:querystring's objects have no prototype and keep every name as sent, where
  // qs ('extended') drops `constructor` or `__proto__` before the validator sees them; Express 5's default, said here
  app.set('query parser', 'simple');
  keepSentBodies(app);
  // req.protocol from X-Forwarded-Proto: the scheme of the partner's URL when a proxy terminates TLS (docs/scaling.md)
  if (ctx.options.trustProxy) app.set('trust proxy', true);

  const route = compileRoutes(ctx.api.document, pipeline.validatorInternals ?? loadValidatorInternal);
  const stepsOf = operationSteps(ctx, handlers, pipeline);

  const hosts = hostPolicy(ctx.options.allowedHosts, [ctx.options.baseUrl, ctx.options.docsUrl]);
  const nextId = requestIds();
  const front = [transferEncodingGuard, hostGuard(hosts), metaRoutes(ctx), requestObserver(ctx, nextId)];
  if (validateResponses) {
    const report =
      typeof validateResponses === 'function'
        ? validateResponses
        : (mismatch: AnswerMismatch) => ctx.logger.error({ mismatch }, 'an answer does not match the document');
    front.push(answerCheck(ctx.api.document, report));
  }
  app.use(chain(front));
  // shadow mode (--upstream): the token request and /v1 go to the upstream, journaled as any request (src/shadow/)
  if (ctx.options.upstream !== undefined)
    app.use((ctx.shadow = shadowMode(ctx, app, ctx.options.upstream, route)).step);
  app.use(CONTROL_PREFIX, controlGuard(ctx));
  app.use(`${CONTROL_PREFIX}/mcp`, mcpEndpoint(ctx, app));
  const unroutedTenant = bearerTenant(ctx);
  app.use((req, res, next) => {
    const state = stateOf(req);
    let match: RouteMatch;
    try {
      match = route(req);
    } catch (error) {
      // an unknown path still belongs to the client whose token it carries (the readiness report's wrong_path)
      state.tenant = unroutedTenant(req);
      throw error;
    }
    state.operationId = match.operation.operationId;
    state.route = match;
    refuseUnsavedWrite(ctx, req.method, match.operation.operationId);
    stepsOf(match.operation)(req, res, next);
  });
  app.use((req) => {
    throw routeNotFound(req);
  });
  app.use(
    errorMiddleware(
      ctx.logger,
      (req) => {
        try {
          return audiencesOf(baseUrlOf(req, ctx))[0];
        } catch {
          return undefined; // a Host that makes no base URL: the answer names no audience
        }
      },
      requestHints(ctx.api.document),
    ),
  );
  return app;
}

/**
 * Each operation's own steps (metadata → bearer token → [fast check] → body → bounds → token request → validate →
 * handler), made on its first request and kept for the instance. Each part is made when a request first needs it:
 * the validator library loads with the first validator, not with the app.
 */
function operationSteps(
  ctx: FakeContext,
  handlers: OperationHandlers,
  pipeline: PipelineOptions,
): (operation: RouteMatch['operation']) => RequestHandler {
  const { validatorInternals = loadValidatorInternal, fastReads = true } = pipeline;
  const body = bodyParsers();
  const bounded = boundedBody(ctx.api.document);
  const bearer = authenticateBearer(ctx, receiveBody(body));
  const tokenRequest = authenticateTokenRequest(ctx);
  const handle = dispatch(ctx, handlers);
  // Here, not with the app: its module loads the library's Ajv, which a process loads with its first validator.
  const shimMetaSchema = once(() =>
    applyShim('meta-schema-shim', () => skipMetaSchemaUnlessChecked(validatorInternals), ctx.logger),
  );
  const saidOnce = new Set<string>();
  const debugOnce = (shim: string, reason: string, message: string): void => {
    if (saidOnce.has(shim)) return;
    saidOnce.add(shim);
    ctx.logger.debug({ shim, reason }, message);
  };
  const stepAside = (reason: string): void =>
    debugOnce(
      'fast-parameters',
      reason,
      `fast parameter check stepped aside: ${reason}; express-openapi-validator checks every read`,
    );
  const newValidator = (operation: RouteMatch['operation']): OperationValidator => {
    shimMetaSchema();
    const validator = operationValidator(ctx.api.document, operation, Boolean(ctx.options.validateResponses));
    if (validator.unknownSteps)
      debugOnce(
        'validator-steps',
        validator.unknownSteps,
        `validator steps run as the library chains them: ${validator.unknownSteps}`,
      );
    return validator;
  };

  const stepsOf = (operation: RouteMatch['operation']): RequestHandler => {
    const validator = once(() => newValidator(operation));
    const metadata = once(() => metadataOnce(validator().metadata));
    const metadataStep: RequestHandler = (req, res, next) =>
      metadata()(req, res, next, stateOf(req).route?.pathParams ?? {});
    const validated = once(() =>
      chain([metadataStep, bearer, ...body, bounded, tokenRequest, ...validator().validate, handle]),
    );
    const fast = fastReads ? fastReadOf(ctx.api.document, operation, validatorInternals, stepAside) : undefined;
    if (fast) {
      // A read with simple parameters: the validator (and the body parsers) only for what the fast check does not take.
      const validatedAfterBearer = once(() => chain([...body, bounded, ...validator().validate, handle]));
      return chain([
        metadataStep,
        bearer,
        (req, res, next) => {
          const query = hasBody(req)
            ? undefined
            : fast(urlParts(req.originalUrl).query, stateOf(req).route?.pathParams ?? {});
          if (query === undefined) return validatedAfterBearer()(req, res, next);
          stateOf(req).query = query;
          return handle(req, res, next);
        },
      ]);
    }
    if (takesNothing(ctx.api.document, operation)) {
      // Nothing for the validator to check (the health check): made when a request brings something to check.
      const unvalidated = chain([bearer, ...body, tokenRequest, handle]);
      return (req, res, next) => (requestAsksNothing(req) ? unvalidated : validated())(req, res, next);
    }
    return validated();
  };

  const made = new Map<OperationId, RequestHandler>();
  return (operation) => {
    let steps = made.get(operation.operationId);
    if (!steps) made.set(operation.operationId, (steps = stepsOf(operation)));
    return steps;
  };
}

/** `make`, run on the first call only; every call answers what it made. */
function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}

// An instance is its context (src/context.ts) and this pipeline over it: a test or a benchmark that builds the
// pipeline with options of its own takes both from here.
export { createContext, logStartWarnings };

/** The Express app of a fresh instance, for supertest or mounting; it never listens. */
export function createApp(options: FakeOptions = {}): Express {
  const ctx = createContext(options);
  logStartWarnings(ctx);
  return buildApp(ctx);
}
