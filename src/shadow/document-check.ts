import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Request, Response } from 'express';
import type { ApiDocument } from '../api/document.js';
import { DomainError, type FieldError } from '../api/errors.js';
import type { Logger } from '../logger.js';
import { boundedBody } from '../http/body-bounds.js';
import { chain } from '../http/chain.js';
import { toFieldError } from '../http/errors.js';
import { compileParameterCheck, type ParameterCheck } from '../http/parameter-check.js';
import { beginRequestState } from '../http/request-state.js';
import type { RouteMatch } from '../http/route-match.js';
import { operationValidator, type OperationValidator } from '../http/validator.js';
import { AnswerCheck, type AnswerRule } from '../api/answer-check.js';
import type { Violation } from '../api/schema-check.js';
import { runNow, type Slices } from '../util/slices.js';

/** A request the pipeline did not receive (shadow mode's forwarded one), as the operation's checks read it. */
export interface OutsideRequest {
  route: RouteMatch;
  method: string;
  /** The request target as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** The body as sent (empty for none) and as parsed (undefined for none). */
  rawBody: Buffer;
  body: unknown;
}

/** A field as the fake's 422 names it, as one pointer: `/query/limit`, `/header/content-type`, `/body/type`. */
const pointerOf = ({ location, path }: FieldError): string => `/${location}${path === '/' ? '' : path}`;

/**
 * The fields a refusal names, as the fake's problem names them: a domain problem's (the body's bounds), or the
 * validator's (and the parameter check's) `errors`, an `errorCode` of `enum…` an enum's.
 */
function violationsOf(refusal: unknown): Violation[] {
  if (refusal instanceof DomainError)
    return (refusal.errors ?? []).map((e) => ({ pointer: pointerOf(e), message: e.message, isEnum: false }));
  const errors = (refusal as { errors?: unknown } | undefined)?.errors;
  if (!Array.isArray(errors)) throw refusal;
  return errors.map((e: { path?: string; message?: string; errorCode?: string }) => {
    const field = toFieldError(e);
    return { pointer: pointerOf(field), message: field.message, isEnum: e.errorCode?.startsWith('enum') ?? false };
  });
}

/**
 * The checks the pipeline runs on a request of an operation, for a request it did not receive: the one parameter
 * check of an operation without a body, or the body's bounds and express-openapi-validator's check of one with a
 * body. Answers the fields the fake's 422 (or 415) would name, none when it takes the request.
 */
function outsideRequestCheck(document: ApiDocument, logger: Logger): (request: OutsideRequest) => Promise<Violation[]> {
  const parameterChecks = new Map<string, ParameterCheck | undefined>();
  // each operation's, asked for once: each call slices the operation's document and writes it out as its key
  const validators = new Map<string, OperationValidator>();
  const bounds = boundedBody(document);
  const bodyCheck = (request: OutsideRequest): Promise<Violation[]> => {
    const { route } = request;
    const { operationId } = route.operation;
    let validator = validators.get(operationId);
    if (!validator) {
      validator = operationValidator(document, route.operation, { checkDocument: false, logger });
      validators.set(operationId, validator);
    }
    const at = request.url.indexOf('?');
    // what of an Express request the steps read; `app`: the router's settings, Express's defaults
    const req = {
      method: request.method,
      url: request.url,
      originalUrl: request.url,
      baseUrl: '',
      path: at === -1 ? request.url : request.url.slice(0, at),
      headers: request.headers,
      query: parseQuery(at === -1 ? '' : request.url.slice(at + 1)),
      params: {},
      body: request.body,
      app: { enabled: () => false },
      get: (name: string) => request.headers[name.toLowerCase()],
    } as unknown as Request;
    Object.assign(beginRequestState(req, undefined), {
      operationId,
      route,
      rawBody: request.rawBody,
    });
    return new Promise((resolve, reject) => {
      chain([bounds, validator.metadata, ...validator.validate])(req, {} as Response, (refusal?: unknown) => {
        try {
          resolve(refusal === undefined ? [] : violationsOf(refusal));
        } catch (error) {
          reject(error);
        }
      });
    });
  };
  return async (request) => {
    const { operation } = request.route;
    if (!parameterChecks.has(operation.operationId))
      parameterChecks.set(operation.operationId, compileParameterCheck(document, operation));
    const check = parameterChecks.get(operation.operationId);
    if (!check) return bodyCheck(request);
    try {
      check({ url: request.url, pathParams: request.route.pathParams, headers: request.headers });
      return [];
    } catch (refusal) {
      return violationsOf(refusal);
    }
  };
}

/**
 * The upstream's answers: every status it answers is a claim about the document, so one no operation lists is
 * flagged; its body is compared as parsed JSON, its Content-Type forwarded as it came, so the body is held to the
 * status's JSON schema whatever media type it names.
 */
const UPSTREAM_ANSWERS: AnswerRule = { undocumentedErrors: 'flagged', mediaType: 'firstJson' };

/**
 * The document's verdict on a forwarded exchange, in both directions: the client's request, by the fake's own checks,
 * and the upstream's answer (its status documented, its body the documented schema, compiled on first use per
 * operation and status).
 */
export class DocumentCheck {
  private readonly answers: AnswerCheck;
  private readonly requestCheck: (request: OutsideRequest) => Promise<Violation[]>;

  constructor(document: ApiDocument, logger: Logger) {
    this.answers = new AnswerCheck(document, UPSTREAM_ANSWERS);
    this.requestCheck = outsideRequestCheck(document, logger);
  }

  /** The client's request, held to the checks the fake's own pipeline runs on it (`outsideRequestCheck`). */
  checkRequest(request: OutsideRequest): Promise<Violation[]> {
    return this.requestCheck(request);
  }

  /** An answer: its status documented for the operation, its JSON body as documented for it (`api/answer-check.ts`). */
  checkAnswer(template: string, method: string, status: number, body: unknown): Violation[] {
    return runNow(this.checkingAnswer(template, method, status, body));
  }

  /** `checkAnswer` in slices: a list answer's items are checked a few at a time. */
  checkingAnswer(template: string, method: string, status: number, body: unknown): Slices<Violation[]> {
    return this.answers.checking({ method, path: template }, { status, body });
  }
}
