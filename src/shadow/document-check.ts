import type { Ajv as AjvClass } from 'ajv';
import { AnswerCheck, type AnswerRule } from '../api/answer-check.js';
import { documentAjv, operationAt, parametersOf, rootedRefs, type ApiDocument } from '../api/document.js';
import { SchemaCheck, violationOf, type Violation } from '../api/schema-check.js';
import { compileParameterCheck, type ParameterCheck } from '../http/parameter-check.js';
import { runNow, type Slices } from '../util/slices.js';

export interface CheckedRequest {
  /** The request target as sent: the parameter check of an operation without a body reads its query from it. */
  url: string;
  pathParams: Record<string, string>;
  /** The query as sent: a name sent twice holds its values in order. */
  query: Record<string, string | string[]>;
  /** The JSON (or form) body as an object; undefined without one. */
  body: unknown;
  contentType: string | undefined;
}

/**
 * The upstream's answers: every status it answers is a claim about the document, so one no operation lists is
 * flagged; its body is compared as parsed JSON, its Content-Type forwarded as it came, so the body is held to the
 * status's JSON schema whatever media type it names.
 */
const UPSTREAM_ANSWERS: AnswerRule = { undocumentedErrors: 'flagged', mediaType: 'firstJson' };

/** The refusal of a parameter check, as violations: none when it takes the request. */
function parameterViolations(check: () => unknown): Violation[] {
  try {
    check();
    return [];
  } catch (error) {
    const errors = (error as { errors?: unknown }).errors;
    if (!Array.isArray(errors)) throw error;
    return errors.map((e: { path?: string; message?: string }) => ({
      pointer: e.path ?? '',
      message: e.message ?? '',
      isEnum: false,
    }));
  }
}

/**
 * The document's verdict on a forwarded exchange, in both directions: the client's request (parameters and body) and
 * the upstream's answer (its status documented, its body the documented schema). Validators are compiled from the
 * document on first use, one per operation and status, with Ajv as the fake's own validator configures it.
 */
export class DocumentCheck {
  private readonly schemas: SchemaCheck;
  private readonly answers: AnswerCheck;
  private coercingAjv: AjvClass | undefined;
  /** Each operation's parameter check (none for one with a body), made on its first forwarded request. */
  private readonly parameterChecks = new Map<string, ParameterCheck | undefined>();

  constructor(private readonly document: ApiDocument) {
    this.schemas = new SchemaCheck(document);
    this.answers = new AnswerCheck(document, UPSTREAM_ANSWERS, this.schemas);
  }

  /** Parameters arrive as text: their Ajv coerces them, as the fake's own validator does. */
  private get coercing(): AjvClass {
    return (this.coercingAjv ??= documentAjv(this.document, { paths: true, coerceTypes: 'array' }));
  }

  /**
   * The client's request. An operation without a body: the one parameter check the fake's own pipeline runs
   * (src/http/parameter-check.ts), its refusal as the fake would word it. One with a body: each parameter against its
   * schema (unlisted query names too), the body against its own.
   */
  checkRequest(template: string, method: string, request: CheckedRequest): Violation[] {
    return runNow(this.checkingRequest(template, method, request));
  }

  /** `checkRequest` in slices (`util/slices.ts`): a long list in the body is checked a few items at a time. */
  *checkingRequest(template: string, method: string, request: CheckedRequest): Slices<Violation[]> {
    const operation = operationAt(this.document, { method, path: template });
    if (!operation) return [];
    const key = `${method} ${template}`;
    if (!this.parameterChecks.has(key))
      this.parameterChecks.set(
        key,
        compileParameterCheck(this.document, { operationId: operation.operationId!, method, path: template }),
      );
    const check = this.parameterChecks.get(key);
    if (check)
      return parameterViolations(() => check({ url: request.url, pathParams: request.pathParams, headers: {} }));
    const parameters = parametersOf(this.document, { method, path: template });
    const schemaOf = (where: string) => ({
      type: 'object',
      properties: Object.fromEntries(
        parameters.filter((p) => p.in === where).map((p) => [p.name!, rootedRefs(p.schema ?? {})]),
      ),
      required: parameters.filter((p) => p.in === where && p.required).map((p) => p.name!),
      ...(where === 'query' && { additionalProperties: false }),
    });
    const violations: Violation[] = [];
    for (const where of ['path', 'query'] as const) {
      const validate = this.schemas.validator(`${method} ${template} ${where}`, () =>
        this.coercing.compile(schemaOf(where)),
      );
      // coercion writes into what it checks: a copy
      const values = structuredClone(where === 'path' ? request.pathParams : request.query);
      if (validate && !validate(values)) violations.push(...(validate.errors ?? []).map(violationOf(`/${where}`)));
    }
    const content = operation.requestBody?.content;
    if (content) {
      const type =
        Object.keys(content).find((t) => request.contentType?.toLowerCase().startsWith(t)) ?? Object.keys(content)[0]!;
      if (request.body === undefined) {
        if (operation.requestBody?.required)
          violations.push({ pointer: '/body', message: 'the request body is required', isEnum: false });
      } else {
        const schema = content[type]?.schema;
        if (schema)
          for (const v of yield* this.schemas.checking(`${method} ${template} body`, schema, request.body, '/body'))
            violations.push(v);
      }
    }
    return violations;
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
