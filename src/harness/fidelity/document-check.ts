import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { ajvErrorAt, documentAjv, documentedResponse, rootedRefs, type ApiDocument } from '../../api/document.js';
import { runNow, type Slices } from '../slices.js';

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

/** List items checked between two chances to give the event loop a turn. */
const ITEMS_PER_STEP = 64;

type SchemaNode = { type?: unknown; items?: unknown; properties?: Record<string, unknown> };

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
    return runNow(this.checkingRequest(template, method, request));
  }

  /** `checkRequest` in slices (`harness/slices.ts`): a long list in the body is checked a few items at a time. */
  *checkingRequest(template: string, method: string, request: CheckedRequest): Slices<Violation[]> {
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
        const schema = content[type]?.schema;
        if (schema) for (const v of yield* this.validating(`${method} ${template} body`, schema, request.body, '/body')) violations.push(v);
      }
    }
    return violations;
  }

  /** An answer: its status documented for the operation, its JSON body the schema documented for that status. */
  checkAnswer(template: string, method: string, status: number, body: unknown): Violation[] {
    return runNow(this.checkingAnswer(template, method, status, body));
  }

  /** `checkAnswer` in slices: a list answer's items are checked a few at a time. */
  *checkingAnswer(template: string, method: string, status: number, body: unknown): Slices<Violation[]> {
    const operation = this.operation(template, method);
    if (!operation) return [];
    const response = documentedResponse(this.document, template, method, status);
    if (!response) return [{ pointer: '', message: `status ${status} is not documented for this operation (${Object.keys(operation.responses ?? {}).join(', ')})`, isEnum: false }];
    const type = Object.keys(response.content).find((t) => t.includes('json'));
    const schema = type === undefined ? undefined : response.content[type]!.schema;
    if (schema === undefined || body === undefined) return [];
    return yield* this.validating(`${method} ${template} ${response.key}`, schema, body, '');
  }

  /**
   * A value against a schema of the document. A list the schema holds at its top (the value itself, or one of its
   * fields) is checked apart, its items a few at a time, so that a 7 MB list answer never holds the event loop for
   * the whole of its check: the rest of the value against the schema without the list's `items`, then each item
   * against `items`. The same errors, at the same pointers, as one check of the whole.
   */
  private *validating(key: string, schema: object, value: unknown, prefix: string): Slices<Violation[]> {
    const resolved = this.resolve<SchemaNode>(schema as SchemaNode);
    const isList = (node: SchemaNode | undefined): node is SchemaNode & { items: object } =>
      node !== undefined && node !== null && node.type === 'array' && typeof node.items === 'object' && node.items !== null;
    const lists: { name: string | undefined; list: SchemaNode & { items: object }; at: unknown[] }[] = [];
    if (Array.isArray(value) && isList(resolved)) lists.push({ name: undefined, list: resolved, at: value });
    else if (resolved?.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, field] of Object.entries(resolved.properties)) {
        const at = (value as Record<string, unknown>)[name];
        const list = this.resolve<SchemaNode>(field as SchemaNode);
        if (Array.isArray(at) && isList(list)) lists.push({ name, list, at });
      }
    }
    const whole = lists.length === 0 ? schema : withoutItems(resolved, lists);
    const validate = this.validator(`${key} ${lists.map((l) => l.name ?? '[]').join(',')}`, () => this.ajv.compile(rootedRefs(whole) as object));
    const violations = validate && !validate(value) ? (validate.errors ?? []).map(violationOf(prefix)) : [];
    for (const list of lists) {
      const item = this.validator(`${key} ${list.name ?? '[]'} items`, () => this.ajv.compile(rootedRefs(list.list.items) as object));
      if (!item) continue;
      const listPrefix = list.name === undefined ? prefix : `${prefix}/${escape(list.name)}`;
      for (let i = 0; i < list.at.length; i++) {
        if (!item(list.at[i])) violations.push(...(item.errors ?? []).map(violationOf(`${listPrefix}/${i}`)));
        if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
      }
    }
    return violations;
  }
}

/** A schema whose lists (the schema itself: name `undefined`, or its named fields) no longer check their items. */
function withoutItems(schema: SchemaNode, lists: readonly { name: string | undefined; list: SchemaNode }[]): object {
  const listOnly = (list: SchemaNode): object => Object.fromEntries(Object.entries(list).filter(([k]) => k !== 'items'));
  const properties = { ...schema.properties };
  for (const { name, list } of lists) {
    if (name === undefined) return listOnly(list);
    properties[name] = listOnly(list);
  }
  return { ...schema, properties };
}
