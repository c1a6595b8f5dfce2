// Profiles the second startServer() → first authenticated 200 in a process that already ran one (modules loaded).
// argv: <file URL of dist/bundle/index.js> <out .cpuprofile> [interval µs] [repeats]
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { performance } from 'node:perf_hooks';

const [distIndex, out, intervalArg, repeatsArg] = process.argv.slice(2);
const session = new Session();
session.connect();
const post = (method, params = {}) =>
  new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));

const { startServer } = await import(distIndex);
async function firstOk() {
  const fake = await startServer();
  const token = await fake.token();
  const response = await fetch(`${fake.url}/v1/share-classes`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`status ${response.status}`);
  return fake;
}
const fakes = [await firstOk()];
await post('Profiler.enable');
await post('Profiler.setSamplingInterval', { interval: Number(intervalArg ?? 100) });
await post('Profiler.start');
const times = [];
// several further instances, so that the samples add up (each is "an instance in a process that has one")
for (let i = 0; i < Number(repeatsArg ?? 10); i++) {
  const t = performance.now();
  fakes.push(await firstOk());
  times.push(performance.now() - t);
}
const { profile } = await post('Profiler.stop');
writeFileSync(out, JSON.stringify(profile));
console.log(JSON.stringify({ times }));
for (const fake of fakes) await fake.stop();
