import { randomBytes } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { API_SCOPES } from '../domain/scopes.js';
import type { FakeContext } from '../context.js';
import { createClient, updateClient } from '../domain/clients.js';
import type { Tenant } from '../domain/tenants.js';
import type { ApiScope } from '../api/types.js';
import { DomainError } from '../api/errors.js';
import { comparing, type Answer } from './compare.js';
import type { Violation } from '../api/schema-check.js';
import { DocumentCheck } from './document-check.js';
import { IdentifierMap, learnFromExchange, translateRequest, whyNotComparable } from './identifiers.js';
import type { ExchangeOutcome, FidelityLog } from './log.js';
import { CredentialBook, withoutGrantedToken } from '../records/secrets.js';
import { jsonBodies } from './json-slices.js';
import { runSliced, SHARED_SLICE_BUDGET_MS, type Slices } from '../util/slices.js';
import { BODY_LIMIT_BYTES } from '../http/body.js';
import type { ForwardedExchange, TokenRequest, TwinSide } from './forwarding.js';
import { replayTransport, type ReplayAnswer, type ReplayTransport } from '../http/replay-transport.js';

/** Upstream tokens this server remembers the client of (by hash), oldest forgotten first. */
const TOKENS_KEPT = 10_000;

/** Exchanges waiting for their comparison at most (each holds its bodies): past it, one is counted, not compared. */
const QUEUE_LIMIT = 1_000;

/**
 * Bytes of upstream answers waiting for their comparison at most (each waits parsed, several times its size in
 * memory): 16 answers at the 8 MiB cap. Past it, an exchange is counted, not compared.
 */
const QUEUE_BYTES = 16 * 8 * 1024 * 1024;

const isJson = (contentType: string | undefined): boolean => /[/+]json\b/i.test(contentType ?? '');

/** A body's JSON (`jsonBodies`: in slices when it is large), undefined for none, or for a body that is not JSON. */
const parsedWith =
  (parse: ReturnType<typeof jsonBodies>) =>
  async (body: Buffer, contentType: string | undefined): Promise<unknown> => {
    if (body.length === 0 || !isJson(contentType)) return undefined;
    try {
      return await parse([body], body.length);
    } catch {
      return undefined;
    }
  };

/** In slices beside the requests (`util/slices.ts`): a 7 MB list never holds the event loop for its whole check. */
const sliced = <T>(work: Slices<T>): Promise<T> => runSliced(work, SHARED_SLICE_BUDGET_MS);

const formObject = (form: [string, string][]): Record<string, string> => Object.fromEntries(form);

const basic = (clientId: string, secret: string): string =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64')}`;

/**
 * The twin side of shadow mode: for each client of the session a tenant of the fake (its twin, made on the first
 * token the upstream grants it, with the scopes granted), each exchange replayed on it through the fake's own
 * pipeline with the session's identifiers translated, and the two answers compared (`compare.ts`). The twin
 * never changes when the upstream refused the request: a write the upstream refused and the twin accepted is undone.
 */
export class Twin implements TwinSide {
  private readonly transport: ReplayTransport;
  private readonly sessions = new Map<string, IdentifierMap>();
  /** Upstream token hash → its client, and the twin's own token for it once the replay got one. */
  private readonly tokens = new Map<string, { clientId: string; twinToken?: string }>();
  /** Twins this server made (their scopes follow what the upstream grants); other tenants are the operator's. */
  private readonly made = new Set<string>();
  /** Clients the upstream granted a token but no twin, and why (MAX_TWINS): what the report says of their exchanges. */
  private readonly withoutTwin = new Map<string, string>();
  private check: DocumentCheck | undefined;
  readonly credentials = new CredentialBook();
  private readonly parsed = parsedWith(jsonBodies());
  /** Bytes of the upstream answers waiting for their comparison (`QUEUE_BYTES`). */
  private waitingBytes = 0;
  private readonly apiScopes: Set<string>;

  constructor(
    private readonly ctx: FakeContext,
    app: RequestListener,
    private readonly log: FidelityLog,
  ) {
    this.transport = replayTransport(app);
    this.apiScopes = new Set(API_SCOPES);
  }

  clientOfToken(tokenHash: string): string | undefined {
    return this.tokens.get(tokenHash)?.clientId;
  }

  tokenGranted(
    clientId: string,
    scope: unknown,
    method: TokenRequest['method'],
    tokenHash: string,
  ): Tenant | undefined {
    this.tokens.set(tokenHash, { clientId });
    if (this.tokens.size > TOKENS_KEPT) this.tokens.delete(this.tokens.keys().next().value!);
    const granted = (typeof scope === 'string' ? scope.split(' ') : []).filter((s) =>
      this.apiScopes.has(s),
    ) as ApiScope[];
    const existing = this.ctx.tenants.find(clientId);
    if (existing) this.withoutTwin.delete(clientId);
    try {
      if (!existing) {
        // its secret is the fake's own, made here: the client's secret is never kept
        createClient(
          this.ctx.tenants,
          {
            client_id: clientId,
            client_secret: randomBytes(24).toString('base64url'),
            scopes: granted,
            token_endpoint_auth_method: method,
          },
          { twin: true },
        );
        this.made.add(clientId);
      } else if (this.made.has(clientId) && granted.some((s) => !existing.client.scopes.includes(s))) {
        updateClient(this.ctx.tenants, clientId, {
          scopes: [...new Set([...existing.client.scopes, ...granted])] as ApiScope[],
        });
      }
    } catch (error) {
      // no room for another twin (MAX_TWINS): the client is still answered; its exchanges are not comparable
      if (!(error instanceof DomainError)) throw error;
      if (!this.withoutTwin.has(clientId))
        this.ctx.logger.warn({ clientId, code: error.code }, 'shadow mode could not make a twin');
      this.withoutTwin.set(clientId, `client "${clientId.slice(0, 200)}" has no twin: ${error.detail}`);
      if (this.withoutTwin.size > TOKENS_KEPT) this.withoutTwin.delete(this.withoutTwin.keys().next().value!);
    }
    return this.ctx.tenants.find(clientId);
  }

  compareLater(exchange: ForwardedExchange): void {
    if (this.log.waiting >= QUEUE_LIMIT) {
      this.log.add(
        this.outcomeOf(
          exchange,
          {
            notComparable: `${QUEUE_LIMIT} exchanges were already waiting for their comparison: the client sends faster than shadow mode compares`,
          },
          [],
        ),
      );
      return;
    }
    const { size } = exchange.upstream;
    if (this.log.waiting > 0 && this.waitingBytes + size > QUEUE_BYTES) {
      const mib = QUEUE_BYTES / (1024 * 1024);
      this.log.add(
        this.outcomeOf(
          exchange,
          {
            notComparable: `answers of ${mib} MiB were already waiting for their comparison: the clients send large answers faster than shadow mode compares`,
          },
          [],
        ),
      );
      return;
    }
    this.waitingBytes += size;
    this.log.enqueue(
      () => this.compare(exchange).finally(() => (this.waitingBytes -= size)),
      (error) => {
        // a failure of the comparison itself is counted, and said, rather than lost
        this.ctx.logger.error({ err: error, reqId: exchange.requestId }, 'shadow mode could not compare an exchange');
        this.log.add(
          this.outcomeOf(
            exchange,
            {
              notComparable: `the twin could not replay it (${error instanceof Error ? error.message : String(error)})`,
            },
            [],
          ),
        );
      },
    );
  }

  private outcomeOf(
    exchange: ForwardedExchange,
    result: ExchangeOutcome['result'],
    violations: ExchangeOutcome['violations'],
  ): ExchangeOutcome {
    return {
      requestId: exchange.requestId,
      clientId:
        exchange.token?.clientId ??
        (exchange.bearer !== undefined ? (this.clientOfToken(exchange.bearer) ?? null) : null),
      operation: exchange.route?.operation.operationId ?? null,
      method: exchange.method,
      path: exchange.path,
      result,
      violations,
      secrets: exchange.secrets,
    };
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private sessionOf(clientId: string): IdentifierMap {
    let session = this.sessions.get(clientId);
    if (!session) this.sessions.set(clientId, (session = new IdentifierMap()));
    return session;
  }

  private async compare(exchange: ForwardedExchange): Promise<void> {
    this.check ??= new DocumentCheck(this.ctx.api.document, this.ctx.logger);
    const { route } = exchange;
    const violations: ExchangeOutcome['violations'] = [];
    const requestBody = exchange.token
      ? { ...formObject(exchange.token.form), ...(exchange.token.secretInForm && { client_secret: '[redacted]' }) }
      : await this.parsed(exchange.body, exchange.contentType);
    let upstreamEnums: string[] = [];
    if (route) {
      const onRequest = await this.check.checkRequest({
        route,
        method: exchange.method,
        url: `${exchange.path}${exchange.rawQuery === '' ? '' : `?${exchange.rawQuery}`}`,
        headers: exchange.contentType === undefined ? {} : { 'content-type': exchange.contentType },
        rawBody: exchange.body,
        body: requestBody,
      });
      const onAnswer = await sliced(
        this.check.checkingAnswer(
          route.openApiRoute,
          exchange.method,
          exchange.upstream.status,
          exchange.upstream.body,
        ),
      );
      // a loop, not push(...): a list answer may break the document at more places than a call takes arguments
      for (const v of onRequest) violations.push({ side: 'request', pointer: v.pointer, message: v.message });
      for (const v of onAnswer) violations.push({ side: 'upstream_answer', pointer: v.pointer, message: v.message });
      upstreamEnums = onAnswer.filter((v) => v.isEnum).map((v) => v.pointer);
    } else {
      violations.push({
        side: 'request',
        pointer: '',
        message: `the document has no operation at ${exchange.method} ${exchange.path.slice(0, 200)}`,
      });
    }
    const outcome = (result: ExchangeOutcome['result']): ExchangeOutcome =>
      this.outcomeOf(exchange, result, violations);
    const replay = exchange.token
      ? await this.replayTokenRequest(exchange, exchange.token)
      : await this.replayApiRequest(exchange);
    if ('notComparable' in replay) {
      this.log.add(outcome({ notComparable: replay.notComparable }));
      return;
    }
    if (replay.answer.status === 0) {
      this.log.add(
        outcome({
          notComparable: "the twin's answer was dropped (a fault injected on its tenant through the control plane)",
        }),
      );
      return;
    }
    const fake: Answer = {
      status: replay.answer.status,
      body: await this.parsed(replay.answer.body, replay.answer.contentType),
    };
    const upstream: Answer = { status: exchange.upstream.status, body: withoutGrantedToken(exchange.upstream.body) };
    const twinWorld = replay.tenant?.store;
    const reason = whyNotComparable(upstream, fake, replay.untranslated, (id) => twinWorld?.holds(id) ?? false);
    if (reason !== undefined) {
      this.log.add(outcome({ notComparable: reason }));
      return;
    }
    const session = replay.session;
    const bothSucceeded = upstream.status < 400 && fake.status < 400;
    if (session && bothSucceeded) {
      learnFromExchange(
        {
          method: exchange.method,
          rawQuery: exchange.rawQuery,
          pathParams: Object.values(route?.pathParams ?? {}),
          requestBody,
          upstream: upstream.body,
          fake: fake.body,
        },
        session,
      );
    }
    const fakeEnums =
      route && fake.status < 400
        ? (await sliced(this.check.checkingAnswer(route.openApiRoute, exchange.method, fake.status, fake.body)))
            .filter((v: Violation) => v.isEnum)
            .map((v) => v.pointer)
        : [];
    const id = (upstream.body as { id?: unknown } | undefined)?.id;
    const findings = await sliced(
      comparing({
        upstream: { ...upstream, body: withoutGrantedToken(upstream.body) },
        fake: { ...fake, body: withoutGrantedToken(fake.body) },
        compareValues: !exchange.token && session !== undefined && typeof id === 'string' && session.isSessions(id),
        translate: session?.translate ?? (() => undefined),
        enumViolations: { upstream: upstreamEnums, fake: fakeEnums },
        secrets: exchange.secrets,
      }),
    );
    this.log.add(outcome({ findings }));
  }

  /** The twin's token request: its secret for a client the upstream accepted, a wrong one after `invalid_client`. */
  private async replayTokenRequest(exchange: ForwardedExchange, token: TokenRequest): Promise<Replayed> {
    const tenant = this.ctx.tenants.find(token.clientId);
    const refusedClient = (exchange.upstream.body as { error?: unknown } | undefined)?.error === 'invalid_client';
    if (!tenant && !refusedClient) {
      return {
        notComparable:
          this.withoutTwin.get(token.clientId) ??
          `client "${token.clientId.slice(0, 200)}" has no twin: the upstream has not granted it a token in this session`,
      };
    }
    const secret =
      tenant && !refusedClient ? tenant.client.client_secret : `not-the-secret-${randomBytes(8).toString('hex')}`;
    const upstreamHost = this.ctxUpstreamHost();
    const form = token.form.map(([name, value]): [string, string] =>
      name === 'audience' &&
      exchange.host !== undefined &&
      (value === upstreamHost.host || value === upstreamHost.hostname)
        ? [name, exchange.host]
        : [name, value],
    );
    if (token.secretInForm) form.push(['client_secret', secret]);
    const body = Buffer.from(form.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'));
    const answer = await this.send(
      exchange,
      '/oauth2/token',
      '',
      body,
      token.method === 'client_secret_basic' ? basic(token.clientId, secret) : undefined,
    );
    const twinToken = ((await this.parsed(answer.body, answer.contentType)) as { access_token?: unknown } | undefined)
      ?.access_token;
    const known = exchange.upstream.tokenHash === undefined ? undefined : this.tokens.get(exchange.upstream.tokenHash);
    if (known && typeof twinToken === 'string') known.twinToken = twinToken;
    return { answer, untranslated: [], session: undefined, tenant: undefined };
  }

  /** A `/v1` request on the twin, in its terms, with its token; a write only the upstream refused is undone. */
  private async replayApiRequest(exchange: ForwardedExchange): Promise<Replayed> {
    let authorization: string | undefined;
    let session: IdentifierMap | undefined;
    let tenant: Tenant | undefined;
    if (exchange.bearer !== undefined) {
      const known = this.tokens.get(exchange.bearer);
      const noTwin = known && this.withoutTwin.get(known.clientId);
      if (noTwin) return { notComparable: noTwin };
      if (!known?.twinToken)
        return {
          notComparable:
            'its access token was not issued through this shadow session (get the token through the fake, or its twin could not be made)',
        };
      authorization = `Bearer ${known.twinToken}`;
      session = this.sessionOf(known.clientId);
      tenant = this.ctx.tenants.find(known.clientId);
    }
    // a body the fake refuses for its size (413) is replayed as it came: translating it would only hold the event loop
    const json = isJson(exchange.contentType) && exchange.body.length <= BODY_LIMIT_BYTES;
    const translated = translateRequest(
      {
        path: exchange.path,
        rawQuery: exchange.rawQuery,
        body: exchange.body,
        json,
        pathParams: Object.values(exchange.route?.pathParams ?? {}),
      },
      session ?? new IdentifierMap(0),
    );
    const write = exchange.method !== 'GET' && exchange.method !== 'HEAD';
    const refused = exchange.upstream.status >= 400;
    const before = tenant && write && refused ? tenant.store.snapshot() : undefined;
    const answer = await this.send(exchange, translated.path, translated.rawQuery, translated.body, authorization);
    // the upstream refused it: whatever the twin answered, its world stays as it was
    if (before && tenant && answer.status < 400) tenant.replaceWorld(before);
    return { answer, untranslated: translated.untranslated, session, tenant };
  }

  private ctxUpstreamHost(): { host: string; hostname: string } {
    const url = new URL(this.log.upstream);
    return { host: url.host, hostname: url.hostname };
  }

  private send(
    exchange: ForwardedExchange,
    path: string,
    rawQuery: string,
    body: Buffer,
    authorization: string | undefined,
  ): Promise<ReplayAnswer> {
    const headers: Record<string, string> = {};
    if (exchange.host !== undefined) headers.host = exchange.host;
    if (exchange.contentType !== undefined) headers['content-type'] = exchange.contentType;
    if (exchange.accept !== undefined) headers.accept = exchange.accept;
    if (authorization !== undefined) headers.authorization = authorization;
    return this.transport.send({
      method: exchange.method,
      url: rawQuery === '' ? path : `${path}?${rawQuery}`,
      headers,
      body,
    });
  }
}

type Replayed =
  | { answer: ReplayAnswer; untranslated: string[]; session: IdentifierMap | undefined; tenant: Tenant | undefined }
  | { notComparable: string };
