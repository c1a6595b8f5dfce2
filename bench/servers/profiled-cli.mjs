// The CLI (dist/bundle/cli.js) run inside this process, with the V8 CPU profiler driven over IPC by bench/profile.mjs:
// { cmd: 'start' } → profiling; { cmd: 'stop', file } → the .cpuprofile written, answered with { stopped: file }.
// With BENCH_PROFILE_FROM_START=1 profiling starts before the CLI module is even imported (startup profiles).
// argv: <path of cli.js> [interval µs]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { pathToFileURL } from 'node:url';

const [cliPath, intervalArg] = process.argv.slice(2);
const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: Number(intervalArg ?? 200) });

async function start() {
  await post('Profiler.start');
}
async function stop(file) {
  const { profile } = await post('Profiler.stop');
  writeFileSync(file, JSON.stringify(profile));
  return file;
}

process.on('message', async (message) => {
  if (message.cmd === 'start') {
    await start();
    process.send({ started: true });
  } else if (message.cmd === 'stop') {
    process.send({ stopped: await stop(message.file) });
  }
});
process.channel?.unref();

if (process.env.BENCH_PROFILE_FROM_START === '1') await start();
// the CLI reads process.argv.slice(2) for its flags: give it none (configuration by environment)
process.argv.splice(2);
await import(pathToFileURL(cliPath).href);
