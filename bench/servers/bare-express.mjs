// The baseline: bare Express answering fixed responses (the fake's own bytes), no auth, no validation, no journal.
// argv: <routes.json> <mode: bytes | json>. PORT from the environment; listens on 127.0.0.1.
//   bytes: res.type('application/json').send(<the exact bytes>)   (what "the same JSON bytes" means literally)
//   json:  res.json(<the parsed value>)                         (a typical handler: serializes on every request)
// routes.json: [{ "method": "GET", "path": "/v1/orders", "status": 200, "body": "<json text>", "byUrl"?: { "<url>": "<json text>" },
//                 "ifQuery"?: "<name>" }]
//   byUrl: the answer for each whole URL (path and query); other URLs go on to the next route of the same path.
//   ifQuery: the route answers only URLs whose query has this parameter (one step of a session: the orders of one
//   account, beside a page of all orders); other URLs go on to the next route of the same path.
import { readFileSync } from 'node:fs';
import express from 'express';

const [routesFile, mode = 'bytes'] = process.argv.slice(2);
const routes = JSON.parse(readFileSync(routesFile, 'utf8'));

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.use(express.json({ limit: '1mb' }));
// routes answering by URL or query first: a plain route of the same path answers the rest
const narrow = (route) => Number(Boolean(route.byUrl || route.ifQuery));
for (const route of [...routes].sort((a, b) => narrow(b) - narrow(a))) {
  const bytes = Buffer.from(route.body, 'utf8');
  const value = JSON.parse(route.body);
  const byUrl = new Map(
    Object.entries(route.byUrl ?? {}).map(([url, body]) => [
      url,
      { bytes: Buffer.from(body, 'utf8'), value: JSON.parse(body) },
    ]),
  );
  const send =
    mode === 'json'
      ? (res) => void res.status(route.status).json(value)
      : (res) => void res.status(route.status).type('application/json').send(bytes);
  const inQuery = route.ifQuery && [`?${route.ifQuery}=`, `&${route.ifQuery}=`];
  const handler = inQuery
    ? (req, res, next) => (req.url.includes(inQuery[0]) || req.url.includes(inQuery[1]) ? send(res) : next())
    : byUrl.size > 0
      ? (req, res, next) => {
          const answer = byUrl.get(req.url);
          if (!answer) return next();
          if (mode === 'json') res.status(route.status).json(answer.value);
          else res.status(route.status).type('application/json').send(answer.bytes);
        }
      : (_req, res) => send(res);
  app[route.method.toLowerCase()](route.path, handler);
}
app.get('/__health', (_req, res) => void res.send('ok'));
app.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
