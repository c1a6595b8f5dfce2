import { randomBytes } from 'node:crypto';
import express, { type Express } from 'express';
import { DEFAULTS, readFixturesFile, type FakeOptions } from './config.js';
import type { FakeContext } from './context.js';
import { controlGuard } from './control/guard.js';
import { controlHandlers } from './control/handlers.js';
import { harnessHandlers } from './control/harness-handlers.js';
import { orderControlHandlers } from './control/order-handlers.js';
import { paymentMethodControlHandlers } from './control/payment-method-handlers.js';
import { toClientRecord } from './domain/clients.js';
import { LinkSigner } from './domain/documents.js';
import type { World } from './api/types.js';
import { checkWorld } from './domain/world.js';
import { generateWorld } from '../fixtures/generate.js';
import { bearerSecurityHandler } from './http/auth/bearer.js';
import { SigningKeys } from './auth/jwt.js';
import { errorMiddleware, notFoundHandler } from './http/errors.js';
import { authHandlers } from './http/handlers/auth.js';
import { catalogHandlers } from './http/handlers/catalog.js';
import { fileHandlers } from './http/handlers/files.js';
import { accountHandlers } from './http/handlers/accounts.js';
import { orderHandlers } from './http/handlers/orders.js';
import { compileWorldValidator, loadApiDocument, operationsOf, type LoadedDocument } from './api/document.js';
import type { OperationHandlers } from './http/operation-handlers.js';
import { apiValidator, type AppOperations } from './http/validator.js';
import { Journal } from './harness/journal.js';
import { Fixtures, TenantRegistry } from './domain/tenants.js';
import { faultInjector } from './http/faults.js';
import { requestObserver } from './http/observe.js';
import { docsRoutes } from './http/docs.js';
import { consoleRoutes } from './http/console.js';
import { pino } from 'pino';

const BODY_LIMIT = '1mb';

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
    tenants: new TenantRegistry(fixtures, clients),
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
    ...accountHandlers(ctx),
    ...orderHandlers(ctx),
    ...fileHandlers(ctx),
    ...controlHandlers(ctx),
    ...paymentMethodControlHandlers(ctx),
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
 * The request pipeline, top to bottom: meta routes (spec, docs, console) → journal and log → body parsers → injected
 * faults → control guard →
 * OpenAPI validator (route, security, request, optionally response) → the handler of the operationId →
 * one error middleware rendering every failure as a problem.
 */
export function buildApp(ctx: FakeContext): Express {
  const handlers = operationHandlers(ctx);
  checkEveryOperationHandled(ctx, handlers);

  const app = express();
  app.disable('x-powered-by');
  app.set('strict routing', true);
  app.set('etag', false);

  app.get('/openapi.json', (_req, res) => void res.type('application/json').send(ctx.api.json));
  app.get('/openapi.yaml', (_req, res) => void res.type('application/yaml').send(ctx.api.yaml));
  app.use(docsRoutes(ctx));
  app.use(consoleRoutes());

  app.use(requestObserver(ctx));
  app.use(express.json({ limit: BODY_LIMIT, strict: false }));
  app.use(express.urlencoded({ limit: BODY_LIMIT, extended: false }));
  app.use(faultInjector(ctx));
  app.use('/__control', controlGuard(ctx.options.controlToken));

  const operations: AppOperations = { handlers, authenticate: bearerSecurityHandler(ctx) };
  app.locals.operations = operations;
  app.use(apiValidator(ctx.api.document, ctx.options.validateResponses ?? false));
  app.use(notFoundHandler);
  app.use(errorMiddleware());
  return app;
}

/** The Express app of a fresh instance, for supertest or mounting; it never listens. */
export function createApp(options: FakeOptions = {}): Express {
  return buildApp(createContext(options));
}
