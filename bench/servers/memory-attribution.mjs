// Where the idle RSS of the CLI comes from: the modules it loads, one step at a time, then the instance and a few
// requests. Run with --expose-gc. argv: <dist root> [orders accounts] (a big world: its parts, step by step). Prints one JSON line: [{ step, rss, heapUsed, external }] in MB.
import http from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const distRoot = process.argv[2];
const steps = [];
const mb = (x) => Math.round((x / 2 ** 20) * 10) / 10;
const mark = (step) => {
  globalThis.gc?.();
  globalThis.gc?.();
  const m = process.memoryUsage();
  steps.push({ step, rss: mb(m.rss), heapUsed: mb(m.heapUsed), external: mb(m.external + m.arrayBuffers) });
};
const distUrl = (rel) => pathToFileURL(join(distRoot, rel)).href;

mark('node itself');
await import('express');
mark('+ express');
await import('express-openapi-validator');
mark('+ express-openapi-validator');
await import('ajv');
await import('ajv-formats');
mark('+ ajv, ajv-formats');
await import('@faker-js/faker/locale/en');
mark('+ @faker-js/faker/locale/en');
await import('pino');
mark('+ pino');
await import('jsonwebtoken');
mark('+ jsonwebtoken');
await import('yaml');
mark('+ yaml');
const { createContext } = await import(distUrl('src/context.js'));
const { productApp } = await import(distUrl('src/satellites.js'));
mark('+ the rest of dist/src (app.js and its imports)');
const ctx = createContext({ logLevel: 'silent' });
mark('+ createContext() (document, generated world, tenants, keys)');
const app = productApp(ctx);
mark('+ productApp() (routes, validator middleware)');
const server = app.listen(0, '127.0.0.1');
await new Promise((resolve) => server.once('listening', resolve));
const url = `http://127.0.0.1:${server.address().port}`;
// node:http as the client (express loaded it already): fetch would add undici, a cost of the client, not the CLI's
const call = (method, path, headers = {}, body) =>
  new Promise((resolve, reject) => {
    const req = http.request(url + path, { method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
    });
    req.on('error', reject);
    req.end(body);
  });
await call('GET', '/__control/health');
mark('+ listen, first request (the validator middleware initializes on it: document, meta-schema, schemas)');
const form = new URLSearchParams({
  grant_type: 'client_credentials',
  scope: 'openid offline',
  client_id: 'sandbox-client',
  client_secret: 'sandbox-secret',
  audience: new URL(url).host,
}).toString();
const { access_token: token } = JSON.parse(
  (await call('POST', '/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, form)).body,
);
mark('+ first token');
for (const path of ['/v1/orders?limit=100', '/v1/share-classes', '/v1/accounts', '/v1/assets']) {
  const r = await call('GET', path, { authorization: `Bearer ${token}` });
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
}
mark('+ first requests of four operations (their validators compiled on first use)');
server.close();
server.closeAllConnections();

const [orders, accounts] = process.argv.slice(3).map(Number);
if (orders > 0) {
  const scale = { orders, accounts };
  const { generateWorld } = await import(distUrl('fixtures/generate.js'));
  const tenants = await import(distUrl('src/domain/tenants.js'));
  const { WorldStore } = await import(distUrl('src/store/world-store.js'));
  let world = generateWorld({ seed: 1, scale });
  mark(`big world: + generateWorld(${orders} orders, ${accounts} accounts), as objects`);
  const json = JSON.stringify(world);
  mark(`big world: + the same as one JSON string (${(json.length / 2 ** 20).toFixed(1)} MB of text)`);
  const store = new WorldStore(JSON.parse(json));
  mark('big world: + a WorldStore of a parsed copy (a tenant: objects and indexes)');
  world = undefined;
  mark('big world: − the generated objects (dropped)');
  let big = tenants.Fixtures ? new tenants.Fixtures(generateWorld({ seed: 1, scale })) : undefined;
  mark('big world: + a Fixtures of another generated world (what an instance keeps besides its tenants)');
  big = undefined;
  const ctx2 = createContext({ logLevel: 'silent', fixtureScale: scale });
  mark('big world: + createContext({ fixtureScale }) (the whole instance, for comparison)');
  globalThis.keep = [store, json, big, ctx2];
}
console.log(JSON.stringify(steps));
