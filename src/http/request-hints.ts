/**
 * What a refusal adds so that a partner can fix the request at once, from the document: the name a step away from an
 * unknown query parameter or body member ("did you mean `order_status`?"), and for a GET of one item where the
 * document has only the list, that list and its filters. The status, code and fields stay as they were
 * (docs/api.md#errors).
 */
import type { Request } from 'express';
import { letterOf, operationsById, operationsOf, parametersOf, type ApiDocument } from '../api/document.js';
import type { FieldError } from '../api/errors.js';
import { memberNamesAt, nearestName, queryNamesOf } from '../api/near-names.js';
import type { Problem } from './problem.js';
import { stateOf } from './request-state.js';

const PAGING = new Set(['skip', 'limit']);

/** A list of the document that names no single item by a further segment, and its filters. */
interface ListOperation {
  path: string;
  expression: RegExp;
  /** Filters that name an item (`account_id`, `isin`: a path parameter elsewhere in the document, or `…_id`). */
  naming: string[];
  others: string[];
}

function listsOf(document: ApiDocument): ListOperation[] {
  const operations = operationsOf(document);
  const pathNames = new Set(
    operations.flatMap((op) => parametersOf(document, op).flatMap((p) => (p.in === 'path' ? [p.name] : []))),
  );
  return operations.flatMap((op) => {
    if (op.method !== 'get') return [];
    const filters = queryNamesOf(document, op);
    if (!filters.includes('skip')) return [];
    const rest = filters.filter((name) => !PAGING.has(name));
    const naming = rest.filter((name) => pathNames.has(name) || name.endsWith('_id'));
    return [
      {
        path: op.path,
        expression: letterOf(op.path).expression,
        naming,
        others: rest.filter((n) => !naming.includes(n)),
      },
    ];
  });
}

const quoted = (names: readonly string[]): string => names.map((n) => `\`${n}\``).join(', ');

/** A GET of `<a list's path>/<one segment>` (a slash after it or not): that list, filtered by what names an item. */
function listHint(lists: readonly ListOperation[], req: Request): string | undefined {
  if (req.method !== 'GET') return undefined;
  const path = req.path.length > 1 && req.path.endsWith('/') ? req.path.slice(0, -1) : req.path;
  const parent = path.slice(0, path.lastIndexOf('/'));
  const list = lists.find((l) => l.expression.test(parent));
  if (!list || parent === '') return undefined;
  const filters = list.naming.length > 0 ? list.naming : list.others;
  const also = list.naming.length > 0 && list.others.length > 0 ? ` (or ${quoted(list.others)})` : '';
  return ` The document reads no single item here: GET ${list.path} lists them, filtered by ${quoted(filters)}${also}.`;
}

/** An unknown query parameter or body member, as the validator names them: where it is, and its name. */
function unknownName(error: FieldError): { pointer: string[]; name: string } | undefined {
  const segments = error.path.split('/').slice(1);
  const name = segments.pop();
  if (name === undefined || name === '') return undefined;
  if (error.location === 'query' && /unknown query parameter/i.test(error.message)) return { pointer: [], name };
  if (error.location === 'body' && /must NOT have additional properties/i.test(error.message))
    return { pointer: segments, name };
  return undefined;
}

/** Each unknown name with the one a step away appended to its message, and to the detail where it quotes it. */
function withNearNames(body: Problem, namesAt: (where: FieldError['location'], pointer: string[]) => string[]) {
  let { detail } = body;
  const errors = body.errors?.map((error) => {
    const unknown = unknownName(error);
    const near = unknown && nearestName(unknown.name, namesAt(error.location, unknown.pointer));
    if (!near) return error;
    const message = `${error.message} (did you mean \`${near}\`?)`;
    detail = detail.replace(
      `${error.location} ${error.path}: ${error.message}`,
      () => `${error.location} ${error.path}: ${message}`,
    );
    return { ...error, message };
  });
  return errors ? { ...body, detail, errors } : body;
}

/**
 * The hints over one document: `(rendered, req)` → the same answer with the hints that apply. Field hints only on a
 * request the route step matched to an operation; the list hint on the 404 or 405 of a path with no GET.
 */
export function requestHints(document: ApiDocument) {
  const byId = operationsById(document);
  let lists: ListOperation[] | undefined;
  return <R extends { body: Problem }>(rendered: R, req: Request): R => {
    const { body } = rendered;
    if (body.code === 'route_not_found' || body.code === 'method_not_allowed') {
      const hint = listHint((lists ??= listsOf(document)), req);
      return hint ? { ...rendered, body: { ...body, detail: `${body.detail}${hint}` } } : rendered;
    }
    const id = stateOf(req).operationId;
    const operation = id === undefined ? undefined : byId.get(id);
    if (!operation) return rendered;
    if (body.code !== 'validation_error') return rendered;
    return {
      ...rendered,
      body: withNearNames(body, (where, pointer) =>
        where === 'query' ? queryNamesOf(document, operation) : memberNamesAt(document, operation, pointer),
      ),
    };
  };
}
