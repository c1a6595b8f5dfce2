import type { Express } from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContext } from '../../src/context.js';
import { productApp } from '../../src/satellites.js';
import { skipMetaSchemaUnlessChecked } from '../../src/http/meta-schema-shim.js';
import { loadValidatorInternal, type LoadValidatorInternal } from '../../src/http/validator-internals.js';
import { ownPathToRegexp } from '../../src/http/route.js';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import { http, testApp, tokenFor } from '../support/test-app.js';

const SCHEMA_MODULE = './framework/openapi.schema.validator';
const notFound = (request: string): Error =>
  Object.assign(new Error(`Cannot find module '${request}'`), { code: 'MODULE_NOT_FOUND' });
/** Internals as a release might ship them: these modules as given, any other one gone. */
const internals =
  (modules: Record<string, unknown>): LoadValidatorInternal =>
  (request) => {
    if (request in modules) return modules[request];
    throw notFound(request);
  };

/** The validator's class as 5.6 has it: `new OpenAPISchemaValidator(options)`, `validate(document)`. */
class KnownSchemaValidator {
  constructor(readonly options: { version: string; validateApiSpec: boolean }) {}
  validate(document: unknown): { errors: unknown[] } {
    return { errors: document === 'broken' ? ['broken'] : [] };
  }
}

describe('the meta-schema shim, when the validator’s internals are not as it knows them, steps aside and changes nothing', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['its file moved', {}, `${SCHEMA_MODULE} cannot be loaded (Cannot find module '${SCHEMA_MODULE}')`],
    [
      'its class renamed',
      { [SCHEMA_MODULE]: { SchemaValidator: KnownSchemaValidator } },
      `${SCHEMA_MODULE} exports no OpenAPISchemaValidator class`,
    ],
    [
      'its method gone',
      {
        [SCHEMA_MODULE]: {
          OpenAPISchemaValidator: class {
            constructor(readonly options: unknown) {}
          },
        },
      },
      'OpenAPISchemaValidator has no validate method',
    ],
    [
      'its constructor taking the version apart',
      {
        [SCHEMA_MODULE]: {
          OpenAPISchemaValidator: class {
            constructor(
              readonly version: string,
              readonly options: unknown,
            ) {}
            validate(_: unknown) {
              return { errors: [] };
            }
          },
        },
      },
      'OpenAPISchemaValidator takes 2 argument(s) and its validate 1, not one options object and one document',
    ],
    [
      'its module an ES module namespace',
      { [SCHEMA_MODULE]: Object.freeze({ OpenAPISchemaValidator: KnownSchemaValidator }) },
      'its OpenAPISchemaValidator cannot be replaced',
    ],
  ];
  it.each(cases)('%s', (_, modules, reason) => {
    const before = Object.values(modules).map((module) => ({ ...(module as object) }));
    expect(skipMetaSchemaUnlessChecked(internals(modules))).toContain(reason);
    expect(Object.values(modules).map((module) => ({ ...(module as object) }))).toEqual(before);
  });

  it('and takes its place when they are: the same answers, the class compiled only for a checked document', () => {
    const module = { OpenAPISchemaValidator: KnownSchemaValidator as unknown };
    expect(skipMetaSchemaUnlessChecked(internals({ [SCHEMA_MODULE]: module }))).toBeUndefined();
    const Shimmed = module.OpenAPISchemaValidator as typeof KnownSchemaValidator & { original: unknown };
    expect(Shimmed.original).toBe(KnownSchemaValidator);
    expect(new Shimmed({ version: '3.0.3', validateApiSpec: true }).validate('broken').errors).toEqual(['broken']);
    expect(new Shimmed({ version: '3.0.3', validateApiSpec: false }).validate('broken').errors).toEqual([]);
    // options of another shape (a release that renamed one): the class's own answer
    expect(new Shimmed({ version: '3.0.3', checkSpec: false } as never).validate('broken').errors).toEqual(['broken']);
    expect(skipMetaSchemaUnlessChecked(internals({ [SCHEMA_MODULE]: module }))).toBeUndefined();
    expect(module.OpenAPISchemaValidator).toBe(Shimmed);
  });
});

describe('an app whose validator internals changed starts, validates as before and says once, at debug, which shim or check stepped aside', () => {
  const INDIVIDUAL = {
    type: 'individual',
    external_id: 'shim-1',
    first_name: 'Ann',
    last_name: 'Example',
    country: 'DE',
  };
  const INVALID = { type: 'individual', dob_day: 40, wallets: 'none', unknown_field: true };

  async function requests(app: Express) {
    const token = await tokenFor(app);
    const as = { Authorization: `Bearer ${token}` };
    const created = await http(app).post('/v1/accounts').set(as).send(INDIVIDUAL);
    return {
      created,
      read: await http(app)
        .get(`/v1/accounts/${String(created.body.id)}`)
        .set(as),
      badId: await http(app).get('/v1/accounts/not-an-id').set(as),
      listed: await http(app).get('/v1/accounts?limit=2').set(as),
      invalid: await http(app).post('/v1/accounts').set(as).send(INVALID),
      unknownQuery: await http(app).get('/v1/accounts?colour=blue').set(as),
      missingGrant: await http(app).post('/oauth2/token').type('form').send({ client_id: 'sandbox-client' }),
    };
  }

  // What apps with the shim in place answer; then the library as it is, without it, while the apps below run (test
  // files share their worker's modules).
  const real = (request: string) => loadValidatorInternal(request) as Record<string, { original?: unknown }>;
  const withShims = new Map<boolean, Awaited<ReturnType<typeof requests>>>();
  const restore: (() => void)[] = [];
  beforeAll(async () => {
    for (const validateResponses of [true, false])
      withShims.set(validateResponses, await requests(testApp({ validateResponses })));
    for (const [request, name] of [[SCHEMA_MODULE, 'OpenAPISchemaValidator']] as const) {
      const module = real(request);
      const current = module[name]!;
      module[name] = (current.original ?? current) as never;
      restore.push(() => void (module[name] = current));
    }
  });
  afterAll(() => {
    for (const undo of restore) undo();
  });

  it.each([
    ['responses validated (tests)', true],
    ['as a partner runs it', false],
  ])('%s', async (_, validateResponses) => {
    const lines: { level: number; shim?: string; reason?: string; msg: string }[] = [];
    const ctx = createContext({ validateResponses, allowedHosts: ['.test'] });
    ctx.logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const changed = internals({ 'path-to-regexp': { pathToRegexp: (path: string) => new RegExp(path) } });
    const app = productApp(ctx, { pipeline: { validatorInternals: changed } });

    const answers = await requests(app);
    const reference = withShims.get(validateResponses)!;
    expect(answers.created.status).toBe(201);
    expect(answers.listed.status).toBe(200);
    expect(answers.listed.body).toEqual(reference.listed.body);
    expect(answers.read.status).toBe(200);
    // the same problems as with the shims: a path parameter, a body against its schema, an unknown query parameter, a
    // token request
    const refused = ['badId', 'invalid', 'unknownQuery', 'missingGrant'] as const;
    expect(refused.map((name) => answers[name].status)).toEqual([422, 422, 422, 400]);
    for (const name of refused) {
      expect(answers[name].status).toBe(reference[name].status);
      expect(answers[name].body).toEqual(reference[name].body);
    }
    expect(answers.invalid.body).toMatchObject({ code: 'validation_error' });
    expect(answers.invalid.body.errors.length).toBeGreaterThan(1);
    await requests(app);

    // once each, in whichever order the requests first needed them
    const stepAside = lines.filter((line) => line.msg.includes('stepped aside'));
    expect(stepAside).toHaveLength(2);
    expect(stepAside).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          level: 20,
          shim: 'meta-schema-shim',
          reason: `${SCHEMA_MODULE} cannot be loaded (Cannot find module '${SCHEMA_MODULE}')`,
        }),
        expect.objectContaining({
          level: 20,
          shim: 'parameter-check',
          reason: "./framework/ajv cannot be loaded (Cannot find module './framework/ajv')",
        }),
      ]),
    );
    // what served them was the library untouched
    expect(real(SCHEMA_MODULE).OpenAPISchemaValidator).not.toHaveProperty('shimmed');
  });
});

describe('routing, when the validator’s path-to-regexp and error classes are gone', () => {
  it('compiles every route of the document to the expression path-to-regexp compiles', () => {
    const real = loadValidatorInternal('path-to-regexp') as {
      pathToRegexp: (path: string, options: object) => { regexp: RegExp; keys: { name: string }[] };
    };
    const compile = (real.pathToRegexp as { original?: typeof real.pathToRegexp }).original ?? real.pathToRegexp;
    const routes = operationsOf(loadApiDocument().document).map((o) => o.path.replace(/\{([^}]+)}/g, ':$1'));
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      for (const sensitive of [false, true]) {
        const theirs = compile(route, { sensitive, strict: false });
        const ours = ownPathToRegexp(route, { sensitive });
        expect([ours.regexp.source, ours.regexp.flags], route).toEqual([theirs.regexp.source, theirs.regexp.flags]);
        expect(ours.keys.map((k) => k.name)).toEqual(theirs.keys.map((k) => k.name));
      }
    }
  });

  it('an app routes as before: the operation, a 404 for an unknown path, a 405 with Allow, a 400 for a malformed path', async () => {
    const app = productApp(createContext({ allowedHosts: ['.test'] }), {
      pipeline: { validatorInternals: internals({}) },
    });
    const reference = testApp();
    for (const target of [app, reference]) {
      const as = { Authorization: `Bearer ${await tokenFor(target)}` };
      expect((await http(target).get('/v1/share-classes?limit=1').set(as)).status).toBe(200);
    }
    const answers = async (target: Express) => {
      const as = { Authorization: `Bearer ${await tokenFor(target)}` };
      const [unknown, method, malformed, slash] = await Promise.all([
        http(target).get('/v1/nothing-here').set(as),
        http(target).put('/v1/share-classes').set(as),
        http(target).get('/v1/accounts/%E0%A4%A').set(as),
        http(target).delete('/v1/orders/00000000-0000-4000-8000-000000000000').set(as),
      ]);
      return [unknown, method, malformed, slash].map((r) => ({
        status: r.status,
        allow: r.headers.allow,
        body: r.body,
      }));
    };
    const [ours, theirs] = await Promise.all([answers(app), answers(reference)]);
    expect(ours.map((a) => a.status)).toEqual([404, 405, 400, 404]);
    expect(ours).toEqual(theirs);
  });
});
