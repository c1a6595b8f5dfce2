import type { RequestHandler } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { productApp } from '../../src/satellites.js';
import { loadValidatorLibrary } from '../../src/http/validator.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

// A release of express-openapi-validator that renames its steps (or adds one) must not stop the fake from serving:
// the library's chain then runs whole where validation runs, with the same answers, and one debug line says so.
// Operation validators are compiled once per process and document, so the app here has a document of its own (its
// title changed).
const library = loadValidatorLibrary() as unknown as { middleware: (options: unknown) => RequestHandler[] };
const original = library.middleware;

const requests = async (app: ReturnType<typeof testApp>) => {
  const as = { Authorization: `Bearer ${await tokenFor(app)}` };
  const answers = [
    await http(app).get('/v1/accounts?limit=2').set(as),
    await http(app).get('/v1/accounts?colour=blue').set(as),
    await http(app).get('/v1/accounts/not-an-id').set(as),
    await http(app).post('/v1/accounts').set(as).send({ type: 'individual', dob_day: 40 }),
  ];
  return answers.map((r) => ({ status: r.status, body: r.body }));
};

let reference: Awaited<ReturnType<typeof requests>>;
beforeAll(async () => {
  reference = await requests(testApp({ validateResponses: true }));
  library.middleware = (options) =>
    original(options).map((step, i) =>
      Object.defineProperty((...args: Parameters<RequestHandler>) => step(...args), 'name', {
        value: `renamedStep${i}`,
      }),
    );
});
afterAll(() => {
  library.middleware = original;
});

it('renamed steps: the same answers, and one debug line naming them', async () => {
  const lines: { msg: string; shim?: string }[] = [];
  const ctx = createContext({ validateResponses: false, allowedHosts: ['.test'] });
  ctx.api = {
    ...ctx.api,
    document: { ...ctx.api.document, info: { ...(ctx.api.document.info as object), title: 'renamed validator steps' } },
  };
  ctx.logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const answers = await requests(productApp(ctx));
  expect(answers.map((a) => a.status)).toEqual([200, 422, 422, 422]);
  expect(answers).toEqual(reference);
  expect(lines.filter((l) => l.shim === 'validator-steps')).toEqual([
    expect.objectContaining({ msg: expect.stringContaining('renamedStep0') }),
  ]);
});
