import { randomBytes } from 'node:crypto';
import express, { type Express } from 'express';
import { DEFAULTS, readFixturesFile, type FakeOptions } from './config.js';
import type { FakeContext } from './context.js';
import { controlGuard } from './control/guard.js';
import { controlHandlers } from './control/handlers.js';
import { harnessHandlers } from './control/harness-handlers.js';
import { orderControlHandlers } from './control/order-handlers.js';
import { toClientRecord } from './domain/clients.js';
import { LinkSigner } from './domain/documents.js';
import type { World } from './api/types.js';
import { checkWorld } from './domain/world.js';
import { generateWorld } from '../fixtures/generate.js';
import { SigningKeys } from './auth/jwt.js';
import { errorMiddleware, routeNotFound } from './http/errors.js';
import { authenticateBearer, authenticateTokenRequest } from './http/authenticate.js';
import { bodyParsers } from './http/body.js';
import { dispatch } from './http/dispatch.js';
import { recordOperation } from './http/route.js';
import { authHandlers } from './http/handlers/auth.js';
import { catalogHandlers } from './http/handlers/catalog.js';
import { fileHandlers } from './http/handlers/files.js';
import { accountHandlers } from './http/handlers/accounts.js';
import { orderHandlers } from './http/handlers/orders.js';
import { compileWorldValidator, loadApiDocument, operationsOf, type LoadedDocument } from './api/document.js';
import type { OperationHandlers } from './http/operation.js';
import { validatorSteps } from './http/validator.js';
import { Journal } from './harness/journal.js';
import { Fixtures, TenantRegistry } from './domain/tenants.js';
import { requestObserver } from './http/observe.js';
import { hostGuard, hostPolicy } from './http/host-guard.js';
import { docsRoutes } from './http/docs.js';
import { consoleRoutes } from './http/console.js';
import { pino } from 'pino';

function loadFixtures(options: FakeOptions, api: LoadedDocument): World {
  if (options.fixtures === undefined) {
    return generateWorld({ seed: options.seed ?? DEFAULTS.seed, ...(options.fixtureScale && { scale: options.fixtureScale }) });
  }
  const source = typeof options.fixtures === 'string' ? readFixturesFile(options.fixtures) : options.fixtures;
  const errors = compileWorldValidator(api.document)(source);
  if (errors.length === 0) errors.push(...checkWorld(source as World));
  if (errors.length > 0) {
    const list = errors.slice(0, 20).map((e) => `  ${e.path}: ${e.message}`).join('\n');
    throw new Error(`The fixtures are not a valid world (${errors.length} problem(s)):\n${list}`);
  }
  return source as World;
}

/** Everything one instance owns, built from its options. */
export function createContext(options: FakeOptions = {}): FakeContext {
  const api = loadApiDocument();
  const fixtures = new Fixtures(loadFixtures(options, api));
  const clients = (options.clients ?? DEFAULTS.clients).map(toClientRecord);
  return {
    options: { ...options, tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds },
    api,
    tenants: new TenantRegistry(fixtures, clients, {
      maxTenants: options.maxTenants ?? DEFAULTS.maxTenants,
      maxRecordsPerTenant: options.maxRecordsPerTenant ?? DEFAULTS.maxRecordsPerTenant,
    }),
    keys: new SigningKeys(),
    linkSigner: new LinkSigner(randomBytes(32)),
    journal: new Journal(options.journalSize),
    // Quiet unless asked: the library runs inside partners' test output.
    logger: pino({ level: options.logLevel ?? 'silent', base: { service: 'investment-api-fake' } }),
  };
}

function operationHandlers(ctx: FakeContext): OperationHandlers {
  return {
    ...authHandlers(ctx),
    ...catalogHandlers(ctx),
    ...accountHandlers,
    ...orderHandlers,
    ...fileHandlers(ctx),
    ...controlHandlers(ctx),
    ...orderControlHandlers(ctx),
    ...harnessHandlers(ctx),
  };
}

/** Fails at startup when the document has an operation without a handler (the type system catches the reverse). */
function checkEveryOperationHandled(ctx: FakeContext, handlers: OperationHandlers): void {
  const missing = operationsOf(ctx.api.document).filter((op) => !(op.operationId in handlers));
  if (missing.length > 0) throw new Error(`Operations without a handler: ${missing.map((op) => op.operationId).join(', ')}`);
}

/**
 * The request pipeline, top to bottom: meta routes (spec, docs, console) → request state, journal and log → control guard →
 * route (the document's operation) → bearer token (the proven client, then its injected faults) → body parsers →
 * token request's client (and its faults) → validate → the operation's handler → one error middleware. The handlers
 * are this API's unless given: a test of the pipeline gives its own with a document of its own (`ctx.api`).
 */
export function buildApp(ctx: FakeContext, handlers: OperationHandlers = operationHandlers(ctx)): Express {
  checkEveryOperationHandled(ctx, handlers);
  const validator = validatorSteps(ctx.api.document, ctx.options.validateResponses ?? false);

  const app = express();
  app.disable('x-powered-by');
  app.set('strict routing', true);
  app.set('etag', false);

  app.use(hostGuard(hostPolicy(ctx.options.allowedHosts, [ctx.options.baseUrl, ctx.options.docsUrl])));
  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(ctx.api.json));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(ctx.api.yaml));
  app.use(docsRoutes(ctx));
  app.use(consoleRoutes());

  app.use(requestObserver(ctx));
  app.use('/__control', controlGuard({ controlToken: ctx.options.controlToken, baseUrl: ctx.options.baseUrl }));
  app.use(validator.route, recordOperation);
  app.use(authenticateBearer(ctx));
  app.use(bodyParsers());
  app.use(authenticateTokenRequest(ctx));
  app.use(validator.validate);
  app.use(dispatch(ctx, handlers));
  app.use((req) => {
    throw routeNotFound(req);
  });
  app.use(errorMiddleware(ctx.logger));
  return app;
}

/** The Express app of a fresh instance, for supertest or mounting; it never listens. */
export function createApp(options: FakeOptions = {}): Express {
  return buildApp(createContext(options));
}
