// Keep-alive connections under load: N concurrent keep-alive connections (default 2,000) each send one request per
// round, for R rounds (default 3), with an idle pause between rounds (default 5 s). Each socket's idle time then
// spreads over a second or two around the pause, which is where Node's default keep-alive (advertised 5 s, the
// socket closed at 6 s) met a client reusing a socket the server was closing: ECONNRESET. Prints the resets, the
// other errors, and how many requests went out on a reused socket.
//
//   npm run build && node bench/keep-alive.mjs                          # the fake as it ships (65 s)
//   node bench/keep-alive.mjs --keep-alive-timeout=5000                 # Node's default, for comparison
//   node bench/keep-alive.mjs --connections=2000 --rounds=3 --pause-ms=5000
import http from 'node:http';
import { parseArgs } from 'node:util';
import { fetchToken, progress, requireBuild, sleep, startCli } from './lib.mjs';

const { values } = parseArgs({
  options: {
    connections: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '3' },
    'pause-ms': { type: 'string', default: '5000' },
    'keep-alive-timeout': { type: 'string' },
  },
});
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const pauseMs = Number(values['pause-ms']);

requireBuild();
const env = {
  LOG_LEVEL: 'silent',
  ...(values['keep-alive-timeout'] && { KEEP_ALIVE_TIMEOUT_MS: values['keep-alive-timeout'] }),
};
const fake = await startCli({ env });
try {
  const token = await fetchToken(fake.url);
  const agent = new http.Agent({
    keepAlive: true,
    maxSockets: connections,
    maxFreeSockets: connections,
    scheduling: 'fifo',
  });
  const outcome = { ok: 0, resets: 0, otherErrors: {}, reused: 0, statuses: {} };
  const once = () =>
    new Promise((resolve) => {
      const req = http.get(
        `${fake.url}/v1/share-classes?limit=1`,
        { agent, headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.resume();
          res.once('end', () => {
            outcome.statuses[res.statusCode] = (outcome.statuses[res.statusCode] ?? 0) + 1;
            if (res.statusCode === 200) outcome.ok++;
            resolve();
          });
        },
      );
      req.once('socket', () => req.reusedSocket && outcome.reused++);
      req.once('error', (error) => {
        if (error.code === 'ECONNRESET') outcome.resets++;
        else
          outcome.otherErrors[error.code ?? error.message] =
            (outcome.otherErrors[error.code ?? error.message] ?? 0) + 1;
        resolve();
      });
    });
  const advertised = await new Promise((resolve) =>
    http.get(`${fake.url}/__control/health`, (res) => {
      res.resume();
      resolve(res.headers['keep-alive']);
    }),
  );
  progress(
    `keep-alive: ${connections} connections × ${rounds} rounds, ${pauseMs} ms idle between rounds; the fake advertises Keep-Alive: ${advertised}`,
  );
  const roundMs = [];
  for (let round = 0; round < rounds; round++) {
    if (round > 0) await sleep(pauseMs);
    const started = performance.now();
    await Promise.all(Array.from({ length: connections }, once));
    roundMs.push(Math.round(performance.now() - started));
    progress(`round ${round + 1}: ${roundMs.at(-1)} ms; resets so far ${outcome.resets}`);
  }
  agent.destroy();
  const total = connections * rounds;
  console.log(
    `Node ${process.version}, ${connections} keep-alive connections × ${rounds} rounds, ${pauseMs} ms idle between rounds; server Keep-Alive: ${advertised}`,
  );
  console.log(`requests      ${total}`);
  console.log(`answered 200  ${outcome.ok} (statuses ${JSON.stringify(outcome.statuses)})`);
  console.log(`ECONNRESET    ${outcome.resets} (${((outcome.resets / total) * 100).toFixed(2)} %)`);
  console.log(`other errors  ${JSON.stringify(outcome.otherErrors)}`);
  console.log(`reused socket ${outcome.reused} (of the ${total - connections} requests after the first round)`);
  console.log(`round times   ${roundMs.join(' / ')} ms`);
  process.exitCode = outcome.resets === 0 && outcome.ok === total ? 0 : 1;
} finally {
  await fake.stop();
}
