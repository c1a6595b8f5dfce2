import express, { type Express } from 'express';
import type { FakeContext } from './context.js';
import { controlGuard } from './control/guard.js';
import { errorMiddleware, routeNotFound } from './http/errors.js';
import { requestHints } from './http/request-hints.js';
import { bearerTenant } from './http/authenticate.js';
import { compileRoutes } from './http/route.js';
import { routeStep } from './http/route-step.js';
import { stateOf } from './http/request-state.js';
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
import { operationsOf, type AnswerMismatch } from './api/document.js';
import { answerCheck } from './http/answer-check.js';
import type { OperationHandlers } from './http/operation.js';
import type { Satellite } from './http/satellite.js';
import { loadValidatorInternal } from './http/validator-internals.js';
import { keepSentBodies, requestIds, requestObserver } from './http/observe.js';
import { hostGuard, hostPolicy } from './http/host-guard.js';
import { transferEncodingGuard } from './http/transfer-encoding.js';
import { audiencesOf, baseUrlOf } from './http/request-context.js';
import { refuseUnsavedWrite } from './http/state-not-saved.js';
import { metaRoutes } from './http/meta-routes.js';
import { operationSteps, type PipelineOptions } from './http/operation-steps.js';
import { composeRequestSteps, type MadeStep, type SatelliteSlot } from './http/pipeline.js';

export type { PipelineOptions };

/**
 * The core's handlers: the API's a file per tag of the document (`http/handlers/<tag>.ts`), the control plane's a
 * file per what it acts on (`control/`); the satellites' their own. test/unit/handler-files.test.ts holds each
 * operation to its file.
 */
function coreHandlers(ctx: FakeContext): Partial<OperationHandlers> {
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
  };
}

/** Fails at startup when the document has an operation without a handler (the type system catches the reverse). */
function checkEveryOperationHandled(ctx: FakeContext, handlers: Partial<OperationHandlers>): OperationHandlers {
  const missing = operationsOf(ctx.api.document).filter((op) => !(op.operationId in handlers));
  if (missing.length > 0)
    throw new Error(`Operations without a handler: ${missing.map((op) => op.operationId).join(', ')}`);
  return handlers as OperationHandlers;
}

/** What `buildApp` composes beside the core's own steps and handlers. */
export interface AppParts {
  /** What attaches from outside the core (src/satellites.ts lists the product's): none, the core alone. */
  satellites?: readonly Satellite[];
  /** Every operation's handler, in place of the core's and the satellites' (a test's own document). */
  handlers?: OperationHandlers;
  pipeline?: PipelineOptions;
  /**
   * A build without some satellites (the core's own tests): an operation no part answers is a path the document does
   * not have (404), not a refused start.
   */
  partial?: boolean;
}

/**
 * The request pipeline: the steps http/pipeline.ts declares, each made here by its name and composed in that order,
 * the satellites' slots filled by the satellites given. With `validateResponses` (tests), each answer is checked
 * against the document after it is sent: the path is the same. The handlers are the core's and the satellites'
 * unless given: a test of the pipeline gives its own with a document of its own (`ctx.api`).
 */
export function buildApp(ctx: FakeContext, parts: AppParts = {}): Express {
  const { satellites = [], pipeline = {} } = parts;
  const gathered = parts.handlers ?? {
    ...coreHandlers(ctx),
    ...Object.assign({}, ...satellites.map((satellite) => satellite.handlers?.(ctx))),
  };
  const handlers = parts.partial ? (gathered as OperationHandlers) : checkEveryOperationHandled(ctx, gathered);
  const { validateResponses } = ctx.options;

  const app = express();
  app.disable('x-powered-by');
  // paths match as written, case and every slash (docs/api.md): Express's own mounts (/__control, its MCP endpoint)
  // as the route step does
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  // queries are data (docs/api.md): node:querystring's objects have no prototype and keep every name as sent, where
  // qs ('extended') drops `constructor` or `__proto__` before the validator sees them; Express 5's default, said here
  app.set('query parser', 'simple');
  keepSentBodies(app);
  // req.protocol from X-Forwarded-Proto: the scheme of the partner's URL when a proxy terminates TLS (docs/scaling.md)
  if (ctx.options.trustProxy) app.set('trust proxy', true);

  const route = compileRoutes(ctx.api.document, pipeline.validatorInternals ?? loadValidatorInternal);
  const stepsOf = operationSteps(ctx, handlers, pipeline);
  const hosts = hostPolicy(ctx.options.allowedHosts, [ctx.options.baseUrl, ctx.options.docsUrl]);
  const report =
    typeof validateResponses === 'function'
      ? validateResponses
      : (mismatch: AnswerMismatch) => ctx.logger.error({ mismatch }, 'an answer does not match the document');
  const attachment = { ctx, app, route };
  const slots = Object.assign({}, ...satellites.map((satellite) => satellite.steps?.(attachment))) as Partial<
    Record<SatelliteSlot, MadeStep>
  >;

  composeRequestSteps(
    app,
    {
      'transfer coding': transferEncodingGuard,
      host: hostGuard(hosts),
      'meta routes': metaRoutes(ctx),
      'request state': requestObserver(ctx, requestIds()),
      'answer check': validateResponses ? answerCheck(ctx.api.document, report) : undefined,
      ...slots,
      control: controlGuard(ctx),
      route: routeStep(route, bearerTenant(ctx)),
      'unsaved write': (req, _res, next) => {
        refuseUnsavedWrite(ctx, req.method, stateOf(req).operationId!);
        next();
      },
      operation: parts.partial
        ? (req, res, next) => {
            const { operation } = stateOf(req).route!;
            // a build without the satellite that answers it: as a path the document does not have
            if (!(operation.operationId in handlers)) throw routeNotFound(req);
            stepsOf(operation)(req, res, next);
          }
        : (req, res, next) => stepsOf(stateOf(req).route!.operation)(req, res, next),
      'not found': (req) => {
        throw routeNotFound(req);
      },
    },
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
