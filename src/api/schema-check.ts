import type { Ajv as AjvClass, ErrorObject, ValidateFunction } from 'ajv';
import { ajvErrorAt, documentAjv, resolveRef, rootedRefs, type ApiDocument } from './document.js';
import { pointerOf } from './json-pointer.js';

/** One place where a request or an answer breaks the document. */
export interface Violation {
  pointer: string;
  message: string;
  /** An `enum` violation: what shadow mode's comparison reports as `enum_value`. */
  isEnum: boolean;
}

/** Work that yields between pieces (`Slices` of `util/slices.ts`, which runs it at once or beside the requests). */
export type Pieces<T> = Generator<void, T, void>;

/** List items checked between two chances to give the event loop a turn. */
const ITEMS_PER_STEP = 64;

type SchemaNode = { type?: unknown; items?: unknown; properties?: Record<string, unknown> };

/** An Ajv error as a violation, its pointer under `prefix`. */
const violationOf =
  (prefix: string) =>
  (e: ErrorObject): Violation => {
    const { pointer, message } = ajvErrorAt(e);
    return { pointer: `${prefix}${pointer}`, message, isEnum: e.keyword === 'enum' };
  };

/**
 * Values checked against schemas of the document, with Ajv as the fake configures it (`documentAjv`: every error,
 * the document's components and paths addressable), each schema compiled once under the key it is asked by.
 */
export class SchemaCheck {
  private ajvOfDocument: AjvClass | undefined;
  private readonly compiled = new Map<string, ValidateFunction | undefined>();

  constructor(private readonly document: ApiDocument) {}

  /** Ajv is loaded with the first schema compiled, not with the checker. */
  private get ajv(): AjvClass {
    return (this.ajvOfDocument ??= documentAjv(this.document, { paths: true }));
  }

  /** The validator compiled under `key` (made by `make` the first time). */
  private validator(key: string, make: (ajv: AjvClass) => ValidateFunction | undefined): ValidateFunction | undefined {
    if (!this.compiled.has(key)) this.compiled.set(key, make(this.ajv));
    return this.compiled.get(key);
  }

  /**
   * A value against a schema of the document. A list the schema holds at its top (the value itself, or one of its
   * fields) is checked apart, its items a few at a time, so that a 7 MB list answer never holds the event loop for
   * the whole of its check: the rest of the value against the schema without the list's `items`, then each item
   * against `items`. The same errors, at the same pointers, as one check of the whole.
   */
  *checking(key: string, schema: object, value: unknown, prefix: string): Pieces<Violation[]> {
    const resolved = resolveRef(this.document, schema as SchemaNode);
    const isList = (node: SchemaNode | undefined): node is SchemaNode & { items: object } =>
      node !== undefined &&
      node !== null &&
      node.type === 'array' &&
      typeof node.items === 'object' &&
      node.items !== null;
    const lists: { name: string | undefined; list: SchemaNode & { items: object }; at: unknown[] }[] = [];
    if (Array.isArray(value) && isList(resolved)) lists.push({ name: undefined, list: resolved, at: value });
    else if (resolved?.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [name, field] of Object.entries(resolved.properties)) {
        const at = (value as Record<string, unknown>)[name];
        const list = resolveRef(this.document, field as SchemaNode);
        if (Array.isArray(at) && isList(list)) lists.push({ name, list, at });
      }
    }
    const whole = lists.length === 0 ? schema : withoutItems(resolved, lists);
    const validate = this.validator(`${key} ${lists.map((l) => l.name ?? '[]').join(',')}`, (ajv) =>
      ajv.compile(rootedRefs(whole) as object),
    );
    const violations = validate && !validate(value) ? (validate.errors ?? []).map(violationOf(prefix)) : [];
    for (const list of lists) {
      const item = this.validator(`${key} ${list.name ?? '[]'} items`, (ajv) =>
        ajv.compile(rootedRefs(list.list.items) as object),
      );
      if (!item) continue;
      const listPrefix = list.name === undefined ? prefix : pointerOf(prefix, list.name);
      for (let i = 0; i < list.at.length; i++) {
        if (!item(list.at[i])) violations.push(...(item.errors ?? []).map(violationOf(pointerOf(listPrefix, i))));
        if (i % ITEMS_PER_STEP === ITEMS_PER_STEP - 1) yield;
      }
    }
    return violations;
  }
}

/** A schema whose lists (the schema itself: name `undefined`, or its named fields) no longer check their items. */
function withoutItems(schema: SchemaNode, lists: readonly { name: string | undefined; list: SchemaNode }[]): object {
  const listOnly = (list: SchemaNode): object =>
    Object.fromEntries(Object.entries(list).filter(([k]) => k !== 'items'));
  const properties = { ...schema.properties };
  for (const { name, list } of lists) {
    if (name === undefined) return listOnly(list);
    properties[name] = listOnly(list);
  }
  return { ...schema, properties };
}
