import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Express } from 'express';
import { loadApiDocument, operationsOf } from '../../src/api/document.js';
import { HOST, http, testApp, tokenFor } from '../support/test-app.js';
import { API_SCOPES, CONTROL_SCOPE } from '../../src/domain/scopes.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const { document, yaml } = loadApiDocument();
const operations = operationsOf(document);

/** The interface of the real service, to the letter (interface-spec.md). */
const INTERFACE = [
  'post /oauth2/token',
  'post /v1/accounts',
  'patch /v1/accounts/{account_id}',
  'get /v1/accounts/{account_id}',
  'get /v1/accounts',
  'get /v1/orders',
  'delete /v1/orders/{order_id}/',
  'get /v1/share-classes',
  'get /v1/share-classes/{isin}',
  'get /v1/assets',
  'get /v1/assets/{isin}/custom-offerings/{custom_offering_id}/documents',
  'get /v1/funds/{abbreviation}/documents',
  'get /v1/accounts/{account_id}/wallets',
  'post /v1/accounts/{account_id}/wallets',
  'patch /v1/accounts/{account_id}/wallets/{wallet_id}',
  'get /v1/accounts/{account_id}/payment-method-details/{payment_method_details_id}',
  'patch /v1/accounts/{account_id}/payment-method-details/{payment_method_details_id}',
];

describe('the OpenAPI document', () => {
  it('holds every operation of the interface at its exact path, the 16 /v1 ones and the token endpoint', () => {
    const present = new Set(operations.map((op) => `${op.method} ${op.path}`));
    for (const operation of INTERFACE) expect(present, operation).toContain(operation);
    expect(operations.filter((op) => op.path.startsWith('/v1/'))).toHaveLength(16);
  });

  it('spells the asset flags as the interface does', () => {
    const asset = (document.components.schemas.Asset as { properties: Record<string, unknown> }).properties;
    expect(Object.keys(asset)).toEqual(expect.arrayContaining(['subscribeable', 'redeemable', 'tradeable']));
  });

  it('has a unique operationId on every operation, and tags the control plane `control`', () => {
    const ids = operations.map((op) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const op of operations.filter((o) => o.path.startsWith('/__control'))) {
      const tags = (document.paths[op.path]![op.method] as { tags: string[] }).tags;
      expect(tags).toEqual(['control']);
    }
  });

  it("lists the real service's scopes only in the public API's OAuth2 flow; `control` is the control plane's own scheme", () => {
    type Schemes = Record<string, { flows?: { clientCredentials: { scopes: Record<string, string> } } }>;
    const schemes = (document.components as unknown as { securitySchemes: Schemes }).securitySchemes;
    expect(Object.keys(schemes.oauth2!.flows!.clientCredentials.scopes).sort()).toEqual([...API_SCOPES].sort());
    expect(Object.keys(schemes.controlClient!.flows!.clientCredentials.scopes)).toEqual([CONTROL_SCOPE]);
    for (const op of operations) {
      const security =
        (document.paths[op.path]![op.method] as { security?: Record<string, string[]>[] }).security ?? [];
      const oauth2 = security.flatMap((requirement) => requirement.oauth2 ?? []);
      expect(
        oauth2.filter((scope) => !API_SCOPES.includes(scope as never)),
        op.operationId,
      ).toEqual([]);
      if (op.path.startsWith('/__control') && op.operationId !== 'getHealth') {
        expect(security, op.operationId).toEqual([{}, { controlToken: [] }, { controlClient: [CONTROL_SCOPE] }]);
      }
    }
  });

  it('generated src/api/schema.d.ts is not stale', async () => {
    // `npm run generate:types` in this process (no npx, no child process): the same generator with the script's
    // options, compared with the committed file instead of written. A change to the script must be mirrored here.
    const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> })
      .scripts['generate:types'];
    expect(script).toBe('openapi-typescript src/api/openapi.yaml --default-non-nullable false -o src/api/schema.d.ts');
    const { default: openapiTS, astToString, COMMENT_HEADER } = await import('openapi-typescript');
    const generated =
      COMMENT_HEADER +
      astToString(
        await openapiTS(pathToFileURL(join(ROOT, 'src/api/openapi.yaml')), { defaultNonNullable: false, silent: true }),
      );
    expect(readFileSync(join(ROOT, 'src/api/schema.d.ts'), 'utf8'), 'run `npm run generate:types`').toBe(generated);
  });
});

describe('serving the document', () => {
  let app: Express;
  beforeAll(() => {
    app = testApp();
  });

  it('GET /openapi.json is the document, its `servers` naming this fake', async () => {
    const response = await http(app).get('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const { servers, ...rest } = response.body;
    const { servers: _, ...source } = parse(yaml);
    expect(rest).toEqual(source);
    expect(servers).toEqual([{ url: `http://${HOST}`, description: expect.any(String) }]);
  });

  it('GET /openapi.yaml is the YAML source, but its `servers`, which name this fake', async () => {
    const response = await http(app).get('/openapi.yaml');
    expect(response.status).toBe(200);
    const file = readFileSync(join(ROOT, 'src/api/openapi.yaml'), 'utf8');
    const cut = (text: string) => text.replace(/\nservers:\n(?: .*\n)+/, '\nservers: …\n');
    expect(cut(response.text)).toBe(cut(file));
    expect(cut(response.text)).not.toBe(response.text);
    expect(parse(response.text).servers).toEqual([{ url: `http://${HOST}`, description: expect.any(String) }]);
  });

  it('names in `servers` the base URL each request has: its Host, or BASE_URL', async () => {
    const served = async (target: Express, host: string) =>
      [
        JSON.parse((await http(target, host).get('/openapi.json')).text).servers[0].url,
        parse((await http(target, host).get('/openapi.yaml')).text).servers[0].url,
      ] as string[];
    expect(await served(app, 'localhost:3000')).toEqual(['http://localhost:3000', 'http://localhost:3000']);
    expect(await served(app, 'fake:8080')).toEqual(['http://fake:8080', 'http://fake:8080']);
    const based = testApp({ baseUrl: 'https://sandbox.example.com' });
    expect(await served(based, 'localhost:3000')).toEqual([
      'https://sandbox.example.com',
      'https://sandbox.example.com',
    ]);
  });

  it('names in the file the port the CLI listens on by default, a URL a client generated from it can call', () => {
    expect(parse(yaml).servers).toEqual([{ url: 'http://localhost:8080', description: expect.any(String) }]);
  });

  it('GET /docs renders it from the locally installed swagger-ui, no CDN', async () => {
    const page = await http(app).get('/docs');
    expect(page.status).toBe(200);
    expect(page.text).not.toMatch(/https?:\/\//);
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const asset of assets) expect((await http(app).get(asset)).status, asset).toBe(200);
    expect((await http(app).get('/docs/init.js')).text).toContain('/openapi.json');
  });
});

describe('every operation is routed to its handler', () => {
  it('answers every operation of the document with something other than a 5xx or a route 404', async () => {
    const app = testApp();
    const token = await tokenFor(app);
    const bodies: Record<string, object> = {
      createAccount: { type: 'individual' },
      registerWallet: { wallet_address: `0x${'0'.repeat(40)}` },
    };
    const sample: Record<string, string> = {
      isin: 'XS0000000000',
      abbreviation: 'NONE',
      client_id: 'sandbox-client',
      file_name: 'x.pdf',
      fault_id: 'fault-1',
    };
    for (const op of operations) {
      const path = op.path.replace(
        /\{(\w+)\}/g,
        (_m, name: string) => sample[name] ?? '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      );
      const request = (
        http(app) as unknown as Record<string, (p: string) => ReturnType<ReturnType<typeof http>['get']>>
      )[op.method]!(path).set('Authorization', `Bearer ${token}`);
      const response =
        op.method === 'get' || op.method === 'delete'
          ? await request
          : await request.send(bodies[op.operationId] ?? {});
      const label = `${op.operationId} ${response.status} ${JSON.stringify(response.body)}`;
      expect(response.status, label).toBeLessThan(500);
      expect(response.body.code, label).not.toBe('route_not_found');
    }
  });
});
