#!/usr/bin/env node
// Where a .cpuprofile's time went: self time by package (the fake's own code by src/ folder) and by function, the
// shares of GC, idle and V8's own work; with a series of iterations (wiremock-overhead.mjs --series=<file>), the same
// within every iteration (the process's startup left out), within the first iteration, within the slowest 1 % (the p99's tail) and within the middle fifth (around p50).
//
//   BENCH_SNAPSHOT=0 node bench/wiremock-overhead.mjs --no-wiremock --only=overhead --series=/tmp/series.json \
//     --fake-node-args="--cpu-prof --cpu-prof-dir=/tmp/prof --cpu-prof-interval=200"
//   node bench/cpuprofile-summary.mjs /tmp/prof/<file>.cpuprofile [--series=/tmp/series.json] [--side=fake] [--top=12]
//
// Locations map to src/*.ts through dist/'s source maps (so profile dist/ in place: BENCH_SNAPSHOT=0).
import { readFileSync } from 'node:fs';
import { analyzeProfile } from './profile.mjs';

const option = (name, fallback) => {
  const found = process.argv.find((a) => a.startsWith(`--${name}=`));
  return found ? found.slice(name.length + 3) : fallback;
};
const file = process.argv.slice(2).find((a) => !a.startsWith('--'));
if (!file) {
  console.error(
    'usage: node bench/cpuprofile-summary.mjs <file.cpuprofile> [--series=<file>] [--side=fake] [--top=12]',
  );
  process.exit(2);
}
const TOP = Number(option('top', 12));
const profile = JSON.parse(readFileSync(file, 'utf8'));

// each sample's time (µs, the monotonic clock) and weight (the time until the next sample)
const times = [];
let t = profile.startTime;
for (const d of profile.timeDeltas) times.push((t += d));
const weights = times.map((x, i) => (times[i + 1] ?? profile.endTime) - x);

/** The profile of the samples that fall in one of `windows` ([from, to] µs), as analyzeProfile reads one. */
function within(windows) {
  const samples = [];
  const deltas = [0];
  let w = 0;
  for (let i = 0; i < times.length; i++) {
    while (w < windows.length && windows[w][1] < times[i]) w++;
    if (w < windows.length && windows[w][0] <= times[i]) {
      samples.push(profile.samples[i]);
      deltas.push(weights[i]);
    }
  }
  return { ...profile, samples, timeDeltas: deltas };
}

const pct = (x) => `${x.toFixed(1)} %`;
// a function's place: the fake's own files by folder (src/http/, src/domain/ …), packages by name, Node's core as one
const groupOf = (what) => {
  const at = what.split('  ').at(-1);
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(at);
  if (pkg) return pkg[1];
  const own = /^(?:dist\/)?src\/(?:([^/]+)\/)?/.exec(at);
  if (own) return own[1] ? `src/${own[1]}/` : 'src/ (top level)';
  if (at.startsWith('node:')) return 'node: (core)';
  return at === '(native)' ? '(native: writev, crypto, …)' : at;
};

function print(title, p, { wallMs } = {}) {
  if (p.samples.length === 0) return console.log(`\n## ${title}: no samples`);
  const a = analyzeProfile(p, TOP);
  const special = (k) => a.special[k]?.ms ?? 0;
  const idle = special('(idle)');
  const busy = a.totalMs - idle;
  console.log(`\n## ${title}`);
  console.log(
    `${wallMs ? `${wallMs.toFixed(0)} ms of iterations, ` : ''}${a.totalMs.toFixed(0)} ms sampled: busy ${busy.toFixed(0)} ms, idle ${idle.toFixed(0)} ms (${pct((idle / a.totalMs) * 100)}). Of busy: GC ${pct((special('(garbage collector)') / busy) * 100)}, V8's own (program) ${pct((special('(program)') / busy) * 100)}`,
  );
  const groups = new Map();
  for (const r of analyzeProfile(p, 1e9).self) groups.set(groupOf(r.what), (groups.get(groupOf(r.what)) ?? 0) + r.ms);
  console.log('self time by package (of busy):');
  for (const [g, ms] of [...groups].sort((x, y) => y[1] - x[1]).slice(0, TOP))
    console.log(`  ${pct((ms / busy) * 100).padStart(7)}  ${ms.toFixed(0).padStart(6)} ms  ${g}`);
  console.log('top functions by self time (of busy):');
  for (const r of a.self)
    console.log(`  ${pct((r.ms / busy) * 100).padStart(7)}  ${r.ms.toFixed(1).padStart(6)} ms  ${r.what}`);
}

print(`the whole profile (${file.split('/').at(-1)})`, profile);

const seriesFile = option('series', undefined);
if (seriesFile) {
  const side = option('side', 'fake');
  const series = JSON.parse(readFileSync(seriesFile, 'utf8'))[side];
  if (!series) throw new Error(`no side ${side} in ${seriesFile}`);
  const windowOf = (r) => [r.at, r.at + r.total * 1000];
  const inProfile = series.filter((r) => r.at >= profile.startTime && r.at <= profile.endTime).length;
  console.log(`\n${series.length} iterations of ${side}, ${inProfile} of them within the profile's time`);
  const byTotal = [...series.keys()].sort((i, j) => series[i].total - series[j].total);
  const tail = byTotal.slice(Math.floor(series.length * 0.99)).filter((i) => i !== 0);
  const middle = byTotal.slice(Math.floor(series.length * 0.4), Math.floor(series.length * 0.6));
  const sum = (ix) => ix.reduce((s, i) => s + series[i].total, 0);
  const steps = (ix) =>
    ['reset', 'token', 'reads']
      .map((k) => `${k} ${(ix.reduce((s, i) => s + series[i][k], 0) / ix.length).toFixed(2)}`)
      .join(', ');
  const set = (title, ix) => {
    const sorted = [...ix].sort((i, j) => series[i].at - series[j].at);
    console.log(
      `\n${title}: ${ix.length} iterations, mean ms: total ${(sum(ix) / ix.length).toFixed(2)}, ${steps(ix)}`,
    );
    print(title, within(sorted.map((i) => windowOf(series[i]))), { wallMs: sum(ix) });
  };
  set('every iteration', [...series.keys()]);
  set('the first iteration', [0]);
  set('the slowest 1 % (past the first)', tail);
  set('the middle fifth (p40-p60)', middle);
}
