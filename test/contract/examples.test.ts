import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { loadApiDocument } from '../../src/api/document.js';
import { AnswerCheck } from '../../src/api/answer-check.js';
import { SchemaCheck } from '../../src/api/schema-check.js';
import { runNow } from '../../src/util/slices.js';
import { DEFAULT_CLIENT } from '../../src/domain/clients.js';
import { startServer } from '../../src/index.js';
import {
  answerCode,
  bodyText,
  documentedExamples,
  exampledOperations,
  INVALID_TOKEN,
  maxTenantBytesOf,
  readExampleFiles,
  type DocumentedExample,
} from '../../scripts/contract-examples.mjs';
import { http, testApp, tokenFor } from '../support/test-app.js';
import { until } from '../support/waits.js';

// The document's examples, one per documented answer of every /v1 operation and the token endpoint, are what a
// partner's contract-testing tool (Specmatic: scripts/specmatic-contract.mjs) replays against a fake. Each must be
// true of a fresh seed-1 fake, whatever order the tool takes them in. Those that need more than a token are the
// external example files (src/api/examples/), so that a plain run of the document alone passes.
const { document } = loadApiDocument();
const files = readExampleFiles();
const examples = documentedExamples(document, files);
const HOST = 'localhost';
const NO_SCOPE = { client_id: 'granted-no-scope', client_secret: 'no-scope-secret', scopes: [] };

interface Parameter {
  name: string;
  in: string;
  schema: object;
  examples?: Record<string, { value: unknown }>;
}
const resolve = <T>(node: T | { $ref: string }): T => {
  let value: unknown = node;
  while (value && typeof (value as { $ref?: unknown }).$ref === 'string') {
    value = (value as { $ref: string }).$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown>)[key], document);
  }
  return value as T;
};

describe('the examples of the document', () => {
  it('give every documented status of the /v1 operations and the token endpoint an answer, and a request of the same name', () => {
    const operations = exampledOperations(document);
    expect(operations).toHaveLength(17);
    for (const { path, method, operation } of operations) {
      for (const status of Object.keys(operation.responses)) {
        const named = examples.filter(
          (e) => e.path === path && e.method === method.toUpperCase() && e.status === Number(status),
        );
        expect(named.length, `${operation.operationId} ${status}`).toBeGreaterThan(0);
        // Specmatic pairs a response example with the parameter and body examples of the same name
        for (const e of named.filter((x) => !x.file)) expect(e.request.named.length, e.name).toBeGreaterThan(0);
      }
    }
    expect(new Set(examples.map((e) => e.name)).size).toBe(examples.length);
  });

  it('in the document need nothing but a token; each that needs more is an external file saying what (`x-given`)', () => {
    const inDocument: string[] = [];
    const walk = (node: unknown, at: string): void => {
      if (Array.isArray(node)) {
        for (const [i, item] of node.entries()) walk(item, `${at}/${i}`);
      } else if (node && typeof node === 'object')
        for (const [key, value] of Object.entries(node)) {
          if (key === 'x-given') inDocument.push(at);
          walk(value, `${at}/${key}`);
        }
    };
    walk(document.paths, '#/paths');
    walk(document.components, '#/components');
    expect(inDocument).toEqual([]);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(Object.keys(file['x-given'] ?? {}), file.file).not.toEqual([]);
  });

  it('in files are Specmatic’s examples of their operation: its method, a path of its template, a documented status and media type', () => {
    const operations = new Map(exampledOperations(document).map((o) => [o.operation.operationId, o]));
    for (const { file, ...example } of files) {
      expect(
        Object.keys(example).filter((k) => !['summary', 'x-given', 'http-request', 'http-response'].includes(k)),
        file,
      ).toEqual([]);
      const e = examples.find((x) => x.file === file)!;
      const { path, method, operation } = operations.get(e.operationId)!;
      const request = example['http-request'];
      expect(request.method, file).toBe(method.toUpperCase());
      const template = new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
      expect(request.path, file).toMatch(template);
      const response = resolve(operation.responses[String(e.status)] as object) as {
        content?: Record<string, unknown>;
      };
      expect(response, `${file}: status ${e.status} is not documented`).toBeDefined();
      expect(Object.keys(response.content ?? {}), file).toContain(e.mediaType);
      // the one token a file may carry is the malformed one; every other token is the run's
      expect(e.request.authorization, file).toBe(e.given.token === 'invalid' ? `Bearer ${INVALID_TOKEN}` : undefined);
    }
  });

  it('hold each answer to the schema of its status and media type (the fake’s own answer check)', () => {
    const answers = new AnswerCheck(document, { undocumentedErrors: 'flagged', mediaType: 'exact' });
    for (const e of examples) {
      const violations = runNow(
        answers.checking(
          { method: e.method.toLowerCase(), path: e.path },
          { status: e.status, body: e.answer, mediaType: e.mediaType },
        ),
      );
      expect(violations, e.name).toEqual([]);
      // an error names its code (a problem's `code`, the token endpoint's `error`), which the replay compares
      if (e.status >= 400) expect(answerCode(e.answer), e.name).toEqual(expect.any(String));
    }
  });

  it('hold each request to its parameters’ and body’s schemas, but where the answer is the refusal of a bad request (400, 415, 422)', () => {
    const schemas = new SchemaCheck(document);
    for (const e of examples.filter((x) => ![400, 415, 422].includes(x.status))) {
      const item = (
        document.paths as Record<
          string,
          Record<
            string,
            {
              parameters?: Parameter[];
              requestBody?: {
                content: Record<string, { schema: object; examples?: Record<string, { value: unknown }> }>;
              };
            }
          >
        >
      )[e.path]!;
      const operation = item[e.method.toLowerCase()]!;
      for (const parameter of (operation.parameters ?? []).map(resolve)) {
        const value = parameter.examples?.[e.name]?.value;
        if (value !== undefined)
          expect(
            runNow(schemas.checking(`${e.name} ${parameter.name}`, parameter.schema, value, '')),
            `${e.name} ${parameter.name}`,
          ).toEqual([]);
      }
      const media = Object.values(operation.requestBody?.content ?? {})[0];
      // a file's body as it shows it (unpadded); the document's of the same name
      const body = e.file
        ? files.find((f) => f.file === e.file)!['http-request'].body
        : media?.examples?.[e.name]?.value;
      if (body !== undefined)
        expect(runNow(schemas.checking(`${e.name} body`, media!.schema, body, '')), `${e.name} body`).toEqual([]);
    }
  });
});

/** Sends an example's request the way its `x-given` says, as a partner's tool would. */
async function replay(app: Express, e: DocumentedExample, tokens: { default: string; noScope: string }) {
  if (e.given.fault)
    await http(app, HOST)
      .post('/__control/faults')
      .send({ method: e.method, path: e.path, status: e.given.fault, count: 1 })
      .expect(201);
  const query = new URLSearchParams(e.request.query).toString();
  let request = http(app, HOST)[e.method.toLowerCase() as 'get'](`${e.request.path}${query ? `?${query}` : ''}`);
  if (e.path !== '/oauth2/token') {
    const token =
      e.given.token === 'invalid' ? INVALID_TOKEN : e.given.token === 'without_scope' ? tokens.noScope : tokens.default;
    request = request.set('Authorization', `Bearer ${token}`);
  }
  if (e.request.contentType) request = request.set('Content-Type', e.request.contentType).send(bodyText(e.request));
  return request;
}

describe('a seed-1 fake answers every example as it says', () => {
  const onOneFake = examples.filter((e) => !e.given.state_dir);

  async function replayAll(order: DocumentedExample[]) {
    const app = testApp({ clients: [DEFAULT_CLIENT, NO_SCOPE], maxTenantBytes: maxTenantBytesOf(order) });
    const tokens = {
      default: await tokenFor(app, { audience: HOST }, HOST),
      noScope: await tokenFor(app, { ...NO_SCOPE, audience: HOST }, HOST),
    };
    const answered: string[] = [];
    for (const e of order) {
      const response = await replay(app, e, tokens);
      answered.push(`${e.name}: ${response.status} ${answerCode(response.body)}`);
    }
    expect(answered).toEqual(order.map((e) => `${e.name}: ${e.status} ${answerCode(e.answer)}`));
  }

  // the mutating examples (a cancel, a wallet, an account) each use data no other example needs
  it('in the document’s order, status and code', { timeout: 60_000 }, () => replayAll(onOneFake));
  it('in the reverse order, status and code', { timeout: 60_000 }, () => replayAll([...onOneFake].reverse()));

  it('and, with a STATE_DIR that cannot take writes, answers the 503 examples with state_not_saved', {
    timeout: 60_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'examples-state-'));
    const fake = await startServer({ stateDir: dir, logLevel: 'silent' });
    try {
      const token = await fake.token();
      // the tenants folder replaced by a file: every write fails (ENOTDIR), as on a full or read-only disk
      renameSync(join(dir, 'tenants'), join(dir, 'tenants.away'));
      writeFileSync(join(dir, 'tenants'), '');
      await fake.control.addClient({ client_id: 'acme', client_secret: 's' });
      await until(async () => (await fetch(`${fake.url}/__control/health`)).status === 503);
      const refusals = examples.filter((e) => e.given.state_dir);
      expect(refusals.map((e) => e.status)).toEqual(refusals.map(() => 503));
      for (const e of refusals) {
        const query = new URLSearchParams(e.request.query).toString();
        const headers: Record<string, string> = { authorization: `Bearer ${token}` };
        if (e.request.contentType) headers['content-type'] = e.request.contentType;
        const response = await fetch(`${fake.url}${e.request.path}${query ? `?${query}` : ''}`, {
          method: e.method,
          headers,
          body: bodyText(e.request),
        });
        expect(`${e.name}: ${response.status} ${answerCode(await response.json())}`).toBe(
          `${e.name}: 503 ${answerCode(e.answer)}`,
        );
      }
    } finally {
      rmSync(join(dir, 'tenants'), { force: true });
      renameSync(join(dir, 'tenants.away'), join(dir, 'tenants'));
      await fake.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
