// The document's named examples as the requests they stand for, read the way Specmatic pairs them: a response
// example and the parameter and request-body examples of the same name, in the same operation, are one exchange.
// Shared by the replay test (test/contract/examples.test.ts) and the Specmatic run (scripts/specmatic-contract.mjs).
//
// The document holds only the exchanges a token is enough for, so that a plain `specmatic test` of it passes. Those
// that need more are Specmatic's external example files beside it (src/api/examples/<name>.json, shipped as
// dist/src/api/examples/): the request and the answer as Specmatic reads them, and `x-given`, what the exchange
// needs besides, in words a partner's QA team can set up on a fake of its own:
//   token: invalid        the request carries `Authorization: Bearer not-a-token`
//   token: without_scope  the request carries a token of a client granted no API scope
//   fault: 429            the tenant holds a fault (POST /__control/faults) answering the operation's path once
//   state_dir: refusing_writes   the fake runs with a STATE_DIR that cannot take writes (GET /__control/health 503)
//   padded: { member, length }   the body's `member` is that many characters long (the file shows it short)
//   content_type: <type>  the body is sent as this media type instead of the documented one (the file's)
//   max_tenant_bytes: <n> the fake runs with that MAX_TENANT_BYTES
import { readdirSync, readFileSync } from 'node:fs';
import { parse } from 'yaml';

export const DOCUMENT_FILE = new URL('../src/api/openapi.yaml', import.meta.url);
/** The external examples: one file per exchange, named as its example (`<operationId>_<status>.json`). */
export const EXAMPLES_DIR = new URL('../src/api/examples/', import.meta.url);
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];
/** The malformed token of `token: invalid`. */
export const INVALID_TOKEN = 'not-a-token';

/** The document as data. */
export function readDocument(file = DOCUMENT_FILE) {
  return parse(readFileSync(file, 'utf8'));
}

/** The operations of the paths `keep` keeps, each with its path, method and path item. */
function operationsWhere(document, keep) {
  return Object.entries(document.paths)
    .filter(([path]) => keep(path))
    .flatMap(([path, item]) =>
      METHODS.filter((m) => item[m]).map((method) => ({ path, method, item, operation: item[method] })),
    );
}

/** The operations every documented answer of which has an example: the public API (`/v1`) and the token endpoint. */
export function exampledOperations(document) {
  return operationsWhere(document, (path) => path.startsWith('/v1/') || path === '/oauth2/token');
}

/** The control plane's operations (`/__control/...`). */
function controlOperations(document) {
  return operationsWhere(document, (path) => path.startsWith('/__control/'));
}

export function resolved(document, node) {
  let value = node;
  while (value && typeof value.$ref === 'string') {
    value = value.$ref
      .slice(2)
      .split('/')
      .reduce((at, key) => at?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], document);
  }
  return value;
}

/** Path-level parameters, then the operation's own (an operation's own of the same name and place wins). */
function parametersOf(document, item, operation) {
  const all = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => resolved(document, p));
  return all.filter((p, i) => !all.slice(i + 1).some((q) => q.name === p.name && q.in === p.in));
}

function padded(body, given) {
  if (!given.padded) return body;
  return { ...body, [given.padded.member]: 'x'.repeat(given.padded.length) };
}

/**
 * Every response example of the exampled operations, with the request of the same name: its path with the path
 * parameters' examples, its query, its body (a string where the example is one: sent as it is, such as a body that
 * is not JSON). Inline examples ask for nothing but a token (`given` is `{}`).
 */
export function inlineExamples(document) {
  const entries = [];
  for (const { path, method, item, operation } of exampledOperations(document)) {
    const parameters = parametersOf(document, item, operation);
    const requestBody = resolved(document, operation.requestBody);
    const [bodyType, bodyMedia] = Object.entries(requestBody?.content ?? {})[0] ?? [];
    for (const [status, responseNode] of Object.entries(operation.responses)) {
      const response = resolved(document, responseNode);
      for (const [mediaType, media] of Object.entries(response.content ?? {})) {
        for (const [name, example] of Object.entries(media.examples ?? {})) {
          const exampleValue = (p) => p.examples?.[name]?.value;
          let filled = path;
          const query = {};
          for (const p of parameters) {
            const value = exampleValue(p);
            if (value === undefined) continue;
            if (p.in === 'path') filled = filled.replace(`{${p.name}}`, encodeURIComponent(String(value)));
            else if (p.in === 'query') query[p.name] = String(value);
          }
          const bodyExample = bodyMedia?.examples?.[name]?.value;
          entries.push({
            operationId: operation.operationId,
            method: method.toUpperCase(),
            path,
            name,
            status: Number(status),
            mediaType,
            summary: example.summary,
            answer: example.value,
            given: {},
            request: {
              path: filled,
              query,
              contentType: bodyExample === undefined ? undefined : bodyType,
              body: bodyExample,
              // the parameters and body that carry this name: a request example exists when any does
              named: parameters
                .filter((p) => exampleValue(p) !== undefined)
                .map((p) => p.name)
                .concat(bodyExample === undefined ? [] : ['body']),
            },
          });
        }
      }
    }
  }
  return entries;
}

/**
 * The control plane's examples, operation by operation: the singular `example` of its parameters, of its request
 * body and of each answer (status and media type), each with the schema it is held to, and the request the
 * parameters' and the body's examples make together. They are documentation only: no name pairs them into an
 * exchange, since a contract-testing tool would test each against the operation's security alternatives
 * (`[{}, {controlToken}, {controlClient}]`), which an example cannot all pass. `named` lists where the operation
 * carries named `examples` instead (a parameter's name, `body`, or `<status> <media type>`).
 */
export function controlExamples(document) {
  return controlOperations(document).map(({ path, method, item, operation }) => {
    const parameters = parametersOf(document, item, operation);
    const requestBody = resolved(document, operation.requestBody);
    const [bodyType, bodyMedia] = Object.entries(requestBody?.content ?? {})[0] ?? [];
    const answers = Object.entries(operation.responses).flatMap(([status, node]) =>
      Object.entries(resolved(document, node).content ?? {}).map(([mediaType, media]) => ({
        status: Number(status),
        mediaType,
        media,
      })),
    );
    let filled = path;
    const query = {};
    const headers = {};
    for (const p of parameters.filter((x) => x.example !== undefined)) {
      if (p.in === 'path') filled = filled.replace(`{${p.name}}`, encodeURIComponent(String(p.example)));
      else if (p.in === 'query') query[p.name] = String(p.example);
      else if (p.in === 'header') headers[p.name] = String(p.example);
    }
    return {
      operationId: operation.operationId,
      method: method.toUpperCase(),
      path,
      statuses: Object.keys(operation.responses).map(Number),
      parameters: parameters
        .filter((p) => p.example !== undefined)
        .map((p) => ({ name: p.name, in: p.in, schema: p.schema, example: p.example })),
      body: bodyMedia && { mediaType: bodyType, schema: bodyMedia.schema, example: bodyMedia.example },
      answers: answers.map(({ status, mediaType, media }) => ({
        status,
        mediaType,
        schema: media.schema,
        example: media.example,
      })),
      named: [
        ...parameters.filter((p) => p.examples !== undefined).map((p) => p.name),
        ...(bodyMedia?.examples === undefined ? [] : ['body']),
        ...answers.filter((a) => a.media.examples !== undefined).map((a) => `${a.status} ${a.mediaType}`),
      ],
      request: {
        path: filled,
        query,
        headers,
        contentType: bodyMedia?.example === undefined ? undefined : bodyType,
        body: bodyMedia?.example,
      },
    };
  });
}

/** The external example files of `dir`, as Specmatic reads them, each with its file's name. */
export function readExampleFiles(dir = EXAMPLES_DIR) {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({ file, ...JSON.parse(readFileSync(new URL(file, dir), 'utf8')) }));
}

const headerOf = (headers, name) =>
  Object.entries(headers ?? {}).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];

/**
 * The external examples as exchanges: the operation is the one its name starts with (`<operationId>_<status>`),
 * the request is the file's, its body padded as `x-given` says.
 */
export function externalExamples(document, files = readExampleFiles()) {
  const operations = new Map(exampledOperations(document).map((o) => [o.operation.operationId, o]));
  return files.map(({ file, summary, 'x-given': given = {}, 'http-request': request, 'http-response': response }) => {
    const name = file.replace(/\.json$/, '');
    const operationId = name.replace(/_\d{3}$/, '');
    const operation = operations.get(operationId);
    if (!operation) throw new Error(`${file}: no operation ${operationId} of the document`);
    return {
      operationId,
      method: request.method,
      path: operation.path,
      name,
      status: response.status,
      mediaType: headerOf(response.headers, 'content-type'),
      summary,
      answer: response.body,
      given,
      file,
      request: {
        path: request.path,
        query: request.query ?? {},
        authorization: headerOf(request.headers, 'authorization'),
        contentType: headerOf(request.headers, 'content-type'),
        body: padded(request.body, given),
        named: [],
      },
    };
  });
}

/**
 * Every documented exchange: the document's own examples and the external ones, operation by operation and status
 * by status as the document lists them.
 */
export function documentedExamples(document, files = readExampleFiles()) {
  const inline = inlineExamples(document);
  const external = externalExamples(document, files);
  const order = [];
  for (const { operation } of exampledOperations(document))
    for (const status of Object.keys(operation.responses)) order.push(`${operation.operationId} ${status}`);
  const rank = (e) => order.indexOf(`${e.operationId} ${e.status}`);
  return [...inline, ...external]
    .map((e, i) => ({ e, i }))
    .sort((a, b) => rank(a.e) - rank(b.e) || a.i - b.i)
    .map(({ e }) => e);
}

/**
 * The `MAX_TENANT_BYTES` the examples' fresh fake starts with: the one an example's `x-given` asks for (a tenant alone
 * otherwise borrows up to `WORLD_BYTES`, and no body under 1 MiB reaches it); undefined when none asks.
 */
export function maxTenantBytesOf(examples) {
  const asked = examples.map((e) => e.given.max_tenant_bytes).filter((n) => n !== undefined);
  return asked.length === 0 ? undefined : Math.min(...asked);
}

/** The code an example's answer names: a problem's `code`, or an RFC 6749 error's `error`. */
export function answerCode(answer) {
  return answer?.code ?? answer?.error;
}

/** The request's body as sent: a string as it is, an object as JSON or as a form. */
export function bodyText({ body, contentType }) {
  if (body === undefined || typeof body === 'string') return body;
  if (contentType === 'application/x-www-form-urlencoded') return new URLSearchParams(body).toString();
  return JSON.stringify(body);
}
