import { createRequire } from 'node:module';
import type { ApiDocument } from '../api/document.js';
import { operationsOf, responseContentOf } from '../api/document.js';
import type { OperationId } from '../api/types.js';

export type Serialize = (value: unknown) => string;
type FastJson = (schema: object, options?: object) => Serialize;

/**
 * Answers written by a serializer compiled from their schema in the document (fast-json-stringify) instead of
 * JSON.stringify, which takes longer over a list of orders (bench/RESULTS.md). Only answers whose bytes are those of
 * JSON.stringify by construction: built as a literal in the schema's order, every property required, no others
 * (`toOrderListItem`); test/unit/serializers.test.ts holds them to it.
 */
export const PRECOMPILED_ANSWERS: ReadonlySet<OperationId> = new Set<OperationId>(['listOrders']);

const require = createRequire(import.meta.url);

/** Compiled serializers by operation and status, made on first use and shared by the process's instances. */
const compiled = new Map<string, Serialize | null>();

/** An answer's JSON schema, the `default` one excluded: a serializer is compiled for a status the document names. */
function schemaOf(document: ApiDocument, operationId: OperationId, status: number): object | undefined {
  const found = operationsOf(document).find((op) => op.operationId === operationId);
  const named = found && (document.paths[found.path]![found.method] as { responses?: Record<string, unknown> }).responses?.[String(status)];
  return named === undefined ? undefined : responseContentOf(document, operationId, status)?.['application/json']?.schema;
}

/** The compiled serializer of an operation's answer with this status, if it is one of PRECOMPILED_ANSWERS. */
export function answerSerializer(document: ApiDocument, operationId: OperationId, status: number): Serialize | undefined {
  if (!PRECOMPILED_ANSWERS.has(operationId)) return undefined;
  const key = `${operationId} ${status}`;
  let serialize = compiled.get(key);
  if (serialize === undefined) {
    const schema = schemaOf(document, operationId, status);
    // the document's components ride along, so that its `#/components/…` references resolve
    serialize = schema ? (require('fast-json-stringify') as FastJson)({ ...schema, components: document.components }) : null;
    compiled.set(key, serialize);
  }
  return serialize ?? undefined;
}
