import { randomBytes } from 'node:crypto';
import { getHeapStatistics } from 'node:v8';
import express, { Router, type Express, type RequestHandler } from 'express';
import { DEFAULTS, readFixturesFile, type FakeOptions } from './config.js';
import type { FakeContext } from './context.js';
import { controlGuard } from './control/guard.js';
import { mcpEndpoint } from './mcp/endpoint.js';
import { controlHandlers } from './control/handlers.js';
import { harnessHandlers } from './control/harness-handlers.js';
import { fidelityHandlers } from './control/fidelity-handlers.js';
import { shadowMode } from './http/shadow/shadow-mode.js';
import { orderControlHandlers } from './control/order-handlers.js';
import { toClientRecord, withDemoSettings, type ClientCreate } from './domain/clients.js';
import { LinkSigner } from './domain/documents.js';
import type { World } from './api/types.js';
import { checkWorld } from './domain/world.js';
import { generatedWorld } from '../fixtures/world-source.js';
import { SigningKeys, VerifiedTokens } from './auth/jwt.js';
import { derivedSecret } from './auth/key-file.js';
import { errorMiddleware, routeNotFound } from './http/errors.js';
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
import { catalogHandlers } from './http/handlers/catalog.js';
import { fileHandlers } from './http/handlers/files.js';
import { accountHandlers } from './http/handlers/accounts.js';
import { orderHandlers } from './http/handlers/orders.js';
import { compileDocumentValidator, compileWorldValidator, loadApiDocument, operationsOf, type AnswerMismatch, type LoadedDocument } from './api/document.js';
import { answerCheck } from './http/answer-check.js';
import type { OperationHandlers } from './http/operation.js';
import { metadataOnce, operationValidator, requestAsksNothing, takesNothing, type OperationValidator } from './http/validator.js';
import { applyShim, loadValidatorInternal, type LoadValidatorInternal } from './http/validator-internals.js';
import { skipMetaSchemaUnlessChecked } from './http/meta-schema-shim.js';
import { DEFAULT_JOURNAL_SIZE, Journal } from './harness/journal.js';
import { budgetWarning, resolveBudgets } from './domain/budgets.js';
import { answersWithSecrets } from './harness/secret-answers.js';
import { Fixtures, TenantRegistry } from './domain/tenants.js';
import { keepSentBodies, requestIds, requestObserver } from './http/observe.js';
import { hostGuard, hostPolicy } from './http/host-guard.js';
import { transferEncodingGuard } from './http/transfer-encoding.js';
import { urlParts } from './http/request-context.js';
import { docsRoutes } from './http/docs.js';
import { refuseUnsavedWrite } from './http/state-not-saved.js';
import { consoleRoutes } from './http/console.js';
import { createLogger } from './logger.js';
import { clientsToStart, keptSigningKey, readSigningKeyFile, readStateDir, restoreTenants } from './persistence/state-dir.js';
import { lockStateDir } from './persistence/state-lock.js';
import { StateWriter } from './persistence/state-writer.js';

function loadFixtures(options: FakeOptions, api: LoadedDocument): World {
  if (options.fixtures === undefined) {
    return generatedWorld({ seed: options.seed ?? DEFAULTS.seed, ...(options.fixtureScale && { scale: options.fixtureScale }) });
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

/** The clients a server starts with, their scopes and settings checked as the control plane checks them: a bad one stops the start, named. */
function checkClients(clients: readonly ClientCreate[], api: LoadedDocument): readonly ClientCreate[] {
  // the library accepts any client id (CLIENTS and the control plane keep to URL-safe ones)
  const validate = compileDocumentValidator(api.document, {
    type: 'object',
    properties: {
      token_endpoint_auth_method: { $ref: 'openapi#/components/schemas/TokenEndpointAuthMethod' },
      scopes: { type: 'array', items: { $ref: 'openapi#/components/schemas/ApiScope' } },
      settings: { $ref: 'openapi#/components/schemas/ClientSettings' },
    },
  });
  for (const client of clients) {
    const errors = validate(client);
    if (errors.length > 0) {
      const list = errors.slice(0, 20).map((e) => `  ${e.path}: ${e.message}`).join('\n');
      throw new Error(`The client "${String(client.client_id)}" is not valid (${errors.length} problem(s)):\n${list}`);
    }
  }
  return clients;
}

function configuredClients(options: FakeOptions, api: LoadedDocument): readonly ClientCreate[] {
  const clients = options.clients ? checkClients(options.clients, api) : DEFAULTS.clients;
  return options.demo ? withDemoSettings(clients) : clients;
}

/**
 * Everything one instance owns, built from its options (and, with STATE_DIR, from what it kept). With STATE_DIR the
 * directory is locked first (a second process on it fails to start, naming the holder), and given back if the start
 * fails after.
 */
export function createContext(options: FakeOptions = {}): FakeContext {
  const { stateDir } = options;
  if (stateDir === undefined) return contextOf(options);
  // a lock lost later is the writer's to report (it is made below); until then nothing has been written
  let lost: (error: Error) => void = () => {};
  const lock = (): (() => void) => lockStateDir(stateDir, (error) => lost(error));
  const release = lock();
  try {
    const ctx = contextOf(options, release, lock);
    lost = (error) => ctx.stateWriter?.lost(error);
    return ctx;
  } catch (error) {
    release();
    throw error;
  }
}

function contextOf(options: FakeOptions, release?: () => void, relock?: () => () => void): FakeContext {
  const api = loadApiDocument();
  const fixtures = new Fixtures(loadFixtures(options, api), options.seed ?? DEFAULTS.seed);
  const { stateDir, signingKeyFile } = options;
  const restored = stateDir === undefined ? { tenants: [] } : readStateDir(stateDir, api.document);
  const keptKey = signingKeyFile !== undefined ? readSigningKeyFile(signingKeyFile) : stateDir !== undefined ? keptSigningKey(stateDir) : undefined;
  const heapLimit = getHeapStatistics().heap_size_limit;
  const budgets = resolveBudgets(
    {
      maxTenants: options.maxTenants ?? DEFAULTS.maxTenants,
      maxRecordsPerTenant: options.maxRecordsPerTenant ?? DEFAULTS.maxRecordsPerTenant,
      journalSize: options.journalSize ?? DEFAULT_JOURNAL_SIZE,
      ...(options.maxTenantBytes !== undefined && { maxTenantBytes: options.maxTenantBytes }),
      ...(options.journalBytes !== undefined && { journalBytes: options.journalBytes }),
      ...(options.journalTotalBytes !== undefined && { journalTotalBytes: options.journalTotalBytes }),
    },
    heapLimit,
  );
  const tenants = new TenantRegistry(
    fixtures,
    clientsToStart(configuredClients(options, api).map(toClientRecord), restored),
    { ...budgets, maxTwins: options.maxTwins ?? DEFAULTS.maxTwins },
    new Map(restored.tenants.map((t) => [t.client.client_id, t.world])),
  );
  restoreTenants(tenants, restored);
  const warning = budgetWarning(budgets, fixtures.bytes, heapLimit);
  // Quiet unless asked: the library runs inside partners' test output.
  const logger = createLogger(options.logLevel ?? 'silent', { base: { service: 'investment-api-fake' } });
  const keys = new SigningKeys(keptKey);
  const ctx: FakeContext = {
    options: { ...options, tokenTtlSeconds: options.tokenTtlSeconds ?? DEFAULTS.tokenTtlSeconds },
    api,
    tenants,
    keys,
    tokens: new VerifiedTokens(keys),
    linkSigner: new LinkSigner(keptKey ? derivedSecret(keptKey, 'investment-api-fake document links') : randomBytes(32)),
    journal: new Journal(budgets.journalSize, answersWithSecrets(api.document), { bytesPerTenant: budgets.journalBytes, totalBytes: budgets.journalTotalBytes }),
    budgets: { ...budgets, heapLimit },
    startWarnings: warning === undefined ? [] : [warning],
    logger,
  };
  if (stateDir !== undefined) {
    // the logger is read when a write fails: the CLI replaces it after this
    ctx.stateWriter = new StateWriter(stateDir, tenants, {
      kept: restored.tenants.map((t) => tenants.get(t.client.client_id)),
      ...(release && { release }),
      ...(relock && { relock }),
      onError: (err, file) => ctx.logger.error({ err, file }, 'could not write to STATE_DIR: writes answer 503 state_not_saved until it takes them again'),
      onRecovered: () => ctx.logger.info('STATE_DIR takes writes again'),
    });
  }
  return ctx;
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
    ...fidelityHandlers(ctx),
  };
}

/** Fails at startup when the document has an operation without a handler (the type system catches the reverse). */
function checkEveryOperationHandled(ctx: FakeContext, handlers: OperationHandlers): void {
  const missing = operationsOf(ctx.api.document).filter((op) => !(op.operationId in handlers));
  if (missing.length > 0) throw new Error(`Operations without a handler: ${missing.map((op) => op.operationId).join(', ')}`);
}

/** The fake's own pages: only paths that may be theirs enter their router (as written: case counts). */
const mayBeMetaPath = (path: string): boolean => path === '/' || path.startsWith('/openapi.') || path.startsWith('/docs') || path.startsWith('/console');

/**
 * The spec, the docs and the console, entered only by paths that may be theirs. The docs router is made with the app
 * (its init script names the default client as it is at each request); the rest of the router on its first request.
 */
function metaRoutes(ctx: FakeContext): RequestHandler {
  const docs = docsRoutes(ctx);
  let router: Router | undefined;
  return (req, res, next) => {
    if (!mayBeMetaPath(req.path)) return next();
    // The document: its own spelling, no trailing slash, GET and HEAD only (in a router of their own, an OPTIONS
    // request would get that router's automatic answer instead of going on to a 404).
    if (req.method === 'GET' || req.method === 'HEAD') {
      if (req.path === '/openapi.json') return void res.type('application/json').send(ctx.api.json);
      if (req.path === '/openapi.yaml') return void res.type('application/yaml').send(ctx.api.yaml);
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
export function buildApp(ctx: FakeContext, handlers: OperationHandlers = operationHandlers(ctx), pipeline: PipelineOptions = {}): Express {
  const { validatorInternals = loadValidatorInternal } = pipeline;
  checkEveryOperationHandled(ctx, handlers);
  const { validateResponses } = ctx.options;

  const app = express();
  app.disable('x-powered-by');
  // paths match as written, case and every slash (CONTRACT 15): Express's own mounts (/__control, its MCP endpoint)
  // as the route step does
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.set('etag', false);
  keepSentBodies(app);
  // req.protocol from X-Forwarded-Proto: the scheme of the partner's URL when a proxy terminates TLS (docs/scaling.md)
  if (ctx.options.trustProxy) app.set('trust proxy', true);

  let metaSchemaShim = false;
  const route = compileRoutes(ctx.api.document, validatorInternals);
  const body = bodyParsers();
  const bounded = boundedBody(ctx.api.document);
  const bearer = authenticateBearer(ctx, receiveBody(body));
  const tokenRequest = authenticateTokenRequest(ctx);
  const handle = dispatch(ctx, handlers);
  // This instance's steps per operation, made on the operation's first request.
  const operationSteps = new Map<OperationId, RequestHandler>();
  let fastCheckLogged = false;
  const fastCheckStepsAside = (reason: string): void => {
    if (fastCheckLogged) return;
    fastCheckLogged = true;
    ctx.logger.debug({ shim: 'fast-parameters', reason }, `fast parameter check stepped aside: ${reason}; express-openapi-validator checks every read`);
  };
  let stepsFallbackLogged = false;
  const newValidator = (operation: RouteMatch['operation']): OperationValidator => {
    if (!metaSchemaShim) {
      // Here, not with the app: its module loads the library's Ajv, which a process loads with its first validator.
      metaSchemaShim = true;
      applyShim('meta-schema-shim', () => skipMetaSchemaUnlessChecked(validatorInternals), ctx.logger);
    }
    const validator = operationValidator(ctx.api.document, operation, Boolean(validateResponses));
    if (validator.unknownSteps && !stepsFallbackLogged) {
      stepsFallbackLogged = true;
      ctx.logger.debug({ shim: 'validator-steps', reason: validator.unknownSteps }, `validator steps run as the library chains them: ${validator.unknownSteps}`);
    }
    return validator;
  };
  const stepsOf = ({ operation }: RouteMatch): RequestHandler => {
    let steps = operationSteps.get(operation.operationId);
    if (steps) return steps;
    let validator: OperationValidator | undefined;
    let metadata: ReturnType<typeof metadataOnce> | undefined;
    const validatorOf = (): OperationValidator => (validator ??= newValidator(operation));
    const metadataStep: RequestHandler = (req, res, next) => (metadata ??= metadataOnce(validatorOf().metadata))(req, res, next, stateOf(req).pathParams ?? {});
    let validated: RequestHandler | undefined;
    const validatedSteps = (): RequestHandler => (validated ??= chain([metadataStep, bearer, ...body, bounded, tokenRequest, ...validatorOf().validate, handle]));
    const fast = pipeline.fastReads === false ? undefined : fastReadOf(ctx.api.document, operation, validatorInternals, fastCheckStepsAside);
    if (fast) {
      // A read with simple parameters: the validator (and the body parsers) only for what the fast check does not take.
      let afterBearer: RequestHandler | undefined;
      const validatedAfterBearer = (): RequestHandler => (afterBearer ??= chain([...body, bounded, ...validatorOf().validate, handle]));
      steps = chain([
        metadataStep,
        bearer,
        (req, res, next) => {
          const query = hasBody(req) ? undefined : fast(urlParts(req.originalUrl).query, stateOf(req).pathParams ?? {});
          if (query === undefined) return validatedAfterBearer()(req, res, next);
          stateOf(req).query = query;
          return handle(req, res, next);
        },
      ]);
    } else if (takesNothing(ctx.api.document, operation)) {
      // Nothing for the validator to check (the health check): made when a request brings something to check.
      const unvalidated = chain([bearer, ...body, tokenRequest, handle]);
      steps = (req, res, next) => (requestAsksNothing(req) ? unvalidated : validatedSteps())(req, res, next);
    } else {
      steps = validatedSteps();
    }
    operationSteps.set(operation.operationId, steps);
    return steps;
  };

  const hosts = hostPolicy(ctx.options.allowedHosts, [ctx.options.baseUrl, ctx.options.docsUrl]);
  const nextId = requestIds();
  const front = [transferEncodingGuard, hostGuard(hosts), metaRoutes(ctx), requestObserver(ctx, nextId)];
  if (validateResponses) {
    const report = typeof validateResponses === 'function' ? validateResponses : (mismatch: AnswerMismatch) => ctx.logger.error({ mismatch }, 'an answer does not match the document');
    front.push(answerCheck(ctx.api.document, report));
  }
  app.use(chain(front));
  // shadow mode (--upstream): the token request and /v1 go to the upstream, journaled as any request (src/http/shadow/)
  if (ctx.options.upstream !== undefined) app.use((ctx.shadow = shadowMode(ctx, app, ctx.options.upstream)).step);
  app.use('/__control', controlGuard(ctx));
  app.use('/__control/mcp', mcpEndpoint(ctx, app));
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
    state.pathParams = match.pathParams;
    refuseUnsavedWrite(ctx, req.method, match.operation.operationId);
    stepsOf(match)(req, res, next);
  });
  app.use((req) => {
    throw routeNotFound(req);
  });
  app.use(errorMiddleware(ctx.logger));
  return app;
}

/** The Express app of a fresh instance, for supertest or mounting; it never listens. */
export function createApp(options: FakeOptions = {}): Express {
  const ctx = createContext(options);
  logStartWarnings(ctx);
  return buildApp(ctx);
}

/** What the start found worth a warning, through the instance's logger (the CLI's once it has replaced it). */
export function logStartWarnings(ctx: FakeContext): void {
  for (const warning of ctx.startWarnings) ctx.logger.warn(warning);
}
