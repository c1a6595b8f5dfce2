import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { ajvErrorAt, documentAjv, documentedResponse, rootedRefs, type ApiDocument } from '../../api/document.js';

/** One place where a request or an answer breaks the document. */
export interface Violation {
  pointer: string;
  message: string;
  /** An `enum` violation: what the comparison reports as `enum_value`. */
  isEnum: boolean;
}

export interface CheckedRequest {
  pathParams: Record<string, string>;
  /** The query as sent: a name sent twice holds its values in order. */
  query: Record<string, string | string[]>;
  /** The JSON (or form) body as an object; undefined without one. */
  body: unknown;
  contentType: string | undefined;
}

type Parameter = { name: string; in: string; required?: boolean; schema?: object };
type Operation = { parameters?: (Parameter | { $ref: string })[]; requestBody?: { required?: boolean; content?: Record<string, { schema?: object }> }; responses?: Record<string, unknown> };

const escape = (segment: string): string => segment.replace(/~/g, '~0').replace(/\//g, '~1');

const violationOf = (prefix: string) => (e: ErrorObject): Violation => {
  const { pointer, message } = ajvErrorAt(e);
  return { pointer: `${prefix}${pointer}`, message, isEnum: e.keyword === 'enum' };
};

/**
 * The document's verdict on a forwarded exchange, in both directions: the client's request (parameters and body) and
 * the upstream's answer (its status documented, its body the documented schema). Validators are compiled from the
 * document on first use, one per operation and status, with Ajv as the fake's own validator configures it.
 */
export class DocumentCheck {
  private readonly ajv: AjvClass;
  private readonly coercing: AjvClass;
  private readonly compiled = new Map<string, ValidateFunction | undefined>();

  constructor(private readonly document: ApiDocument) {
    this.ajv = documentAjv(document, { paths: true });
    this.coercing = documentAjv(document, { paths: true, coerceTypes: 'array' });
  }

  private operation(template: string, method: string): Operation | undefined {
    return (this.document.paths[template] as Record<string, Operation> | undefined)?.[method.toLowerCase()];
  }

  private validator(key: string, make: () => ValidateFunction | undefined): ValidateFunction | undefined {
    if (!this.compiled.has(key)) this.compiled.set(key, make());
    return this.compiled.get(key);
  }

  private resolve<T>(value: T | { $ref: string }): T {
    let current: unknown = value;
    for (let i = 0; i < 10 && current && typeof current === 'object' && '$ref' in current; i++) {
      const path = (current as { $ref: string }).$ref.replace(/^#\//, '').split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
      current = path.reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], this.document);
    }
    return current as T;
  }

  /** The client's request: each parameter against its schema (query names the document does not list included), the body against its own. */
  checkRequest(template: string, method: string, request: CheckedRequest): Violation[] {
    const operation = this.operation(template, method);
    if (!operation) return [];
    const parameters = [...((this.document.paths[template] as { parameters?: Parameter[] }).parameters ?? []), ...(operation.parameters ?? [])].map((p) => this.resolve<Parameter>(p));
    const schemaOf = (where: string) => ({
      type: 'object',
      properties: Object.fromEntries(parameters.filter((p) => p.in === where).map((p) => [p.name, rootedRefs(p.schema ?? {})])),
      required: parameters.filter((p) => p.in === where && p.required).map((p) => p.name),
      ...(where === 'query' && { additionalProperties: false }),
    });
    const violations: Violation[] = [];
    for (const where of ['path', 'query'] as const) {
      const validate = this.validator(`${method} ${template} ${where}`, () => this.coercing.compile(schemaOf(where)));
      // coercion writes into what it checks: a copy
      const values = structuredClone(where === 'path' ? request.pathParams : request.query);
      if (validate && !validate(values)) violations.push(...(validate.errors ?? []).map(violationOf(`/${where}`)));
    }
    const content = operation.requestBody?.content;
    if (content) {
      const type = Object.keys(content).find((t) => request.contentType?.toLowerCase().startsWith(t)) ?? Object.keys(content)[0]!;
      if (request.body === undefined) {
        if (operation.requestBody?.required) violations.push({ pointer: '/body', message: 'the request body is required', isEnum: false });
      } else {
        const pointer = `openapi#/paths/${escape(template)}/${method.toLowerCase()}/requestBody/content/${escape(type)}/schema`;
        const validate = this.validator(`${method} ${template} body`, () => (content[type]?.schema ? this.ajv.compile({ $ref: pointer }) : undefined));
        if (validate && !validate(request.body)) violations.push(...(validate.errors ?? []).map(violationOf('/body')));
      }
    }
    return violations;
  }

  /** An answer: its status documented for the operation, its JSON body the schema documented for that status. */
  checkAnswer(template: string, method: string, status: number, body: unknown): Violation[] {
    const operation = this.operation(template, method);
    if (!operation) return [];
    const response = documentedResponse(this.document, template, method, status);
    if (!response) return [{ pointer: '', message: `status ${status} is not documented for this operation (${Object.keys(operation.responses ?? {}).join(', ')})`, isEnum: false }];
    const type = Object.keys(response.content).find((t) => t.includes('json'));
    const schema = type === undefined ? undefined : response.content[type]!.schema;
    if (schema === undefined || body === undefined) return [];
    const validate = this.validator(`${method} ${template} ${response.key}`, () => this.ajv.compile(rootedRefs(schema) as object));
    return validate && !validate(body) ? (validate.errors ?? []).map(violationOf('')) : [];
  }
}
