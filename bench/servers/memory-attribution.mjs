// Where the idle RSS of the CLI comes from: the modules it loads, one step at a time, then the instance and a few
// requests. Run with --expose-gc. argv: <dist root>. Prints one JSON line: [{ step, rss, heapUsed, external }] in MB.
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
const { createContext, buildApp } = await import(distUrl('src/app.js'));
mark('+ the rest of dist/src (app.js and its imports)');
const ctx = createContext({ logLevel: 'silent' });
mark('+ createContext() (document, generated world, tenants, keys)');
const app = buildApp(ctx);
mark('+ buildApp() (routes, validator middleware)');
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
const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'openid offline', client_id: 'sandbox-client', client_secret: 'sandbox-secret', audience: new URL(url).host }).toString();
const { access_token: token } = JSON.parse((await call('POST', '/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, form)).body);
mark('+ first token');
for (const path of ['/v1/orders?limit=100', '/v1/share-classes', '/v1/accounts', '/v1/assets']) {
  const r = await call('GET', path, { authorization: `Bearer ${token}` });
  if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
}
mark('+ first requests of four operations (their validators compiled on first use)');
console.log(JSON.stringify(steps));
server.close();
server.closeAllConnections();
