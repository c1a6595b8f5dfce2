// The baseline of "import + first startServer() → first authenticated 200": a fresh process that imports Express,
// builds an app with a JSON body parser and one route, listens, and answers its first request with 200 — what the
// fake's startup child does with the library, minus the fake (prints one JSON line).
import { once } from 'node:events';
import http from 'node:http';
import { performance } from 'node:perf_hooks';

// As in startup-child.mjs: the client's fetch loads lazily, so it is warmed before any clock starts.
const warm = http.createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
await once(warm, 'listening');
await (await fetch(`http://127.0.0.1:${warm.address().port}/`)).text();
await new Promise((resolve) => warm.close(resolve));

const t0 = performance.now();
const { default: express } = await import('express');
const importMs = performance.now() - t0;

const start = performance.now();
const app = express();
app.use(express.json());
app.get('/v1/share-classes', (_req, res) => void res.json({ data: [] }));
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const response = await fetch(`http://127.0.0.1:${server.address().port}/v1/share-classes`);
await response.arrayBuffer();
if (response.status !== 200) throw new Error(`bare Express answered ${response.status}`);
const firstMs = performance.now() - start;

console.log(JSON.stringify({ importMs, firstMs }));
server.close();
