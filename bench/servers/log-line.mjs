// A plain node:http server answering `ok`, with the fake's request log line written through pino in one of four ways.
// argv: <none | default | sync | buffered>. PORT from the environment; listens on 127.0.0.1.
//   none      no log line
//   default   pino's default destination (asynchronous, as the CLI's `json` format writes)
//   sync      pino.destination({ sync: true })
//   buffered  pino.destination({ sync: false, minLength: 4096 })
import http from 'node:http';
import { destination, pino } from 'pino';

const mode = process.argv[2] ?? 'default';
const options = { level: 'info', base: { service: 'investment-api-fake' } };
const destinations = {
  default: undefined,
  sync: () => destination({ dest: 1, sync: true }),
  buffered: () => destination({ dest: 1, sync: false, minLength: 4096 }),
};
const logger = mode === 'none' ? undefined : destinations[mode] ? pino(options, destinations[mode]()) : pino(options);

let id = 0;
http
  .createServer((req, res) => {
    const started = performance.now();
    res.end('ok');
    // the fields of the fake's line (src/http/observe.ts)
    logger?.info(
      {
        reqId: String(++id),
        method: req.method,
        path: req.url,
        status: 200,
        durationMs: Math.round((performance.now() - started) * 100) / 100,
        clientId: 'sandbox-client',
      },
      'request',
    );
  })
  .listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => process.exit(0));
