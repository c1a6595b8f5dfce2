// The report: one table of every figure with its baseline, the ratio, the target and PASS/MISS, a header with the
// machine, and notes on the noise of the run. Pure functions of the results of the other modules.
import os from 'node:os';

export const TARGETS = {
  secondStart: { max: 100, text: '≤ 100 ms' },
  cliHealthy: { max: 600, text: '≤ 600 ms' },
  reset: { max: 2, text: '≤ 2 ms' },
  ordersVsBare: { min: 0.6, text: '≥ 0.6 × bare' },
  ordersVsPrism: { min: 2, text: '≥ 2 × Prism' },
  scaleP50: { max: 5 },
  scaleP99: { max: 20 },
  scaleRss: { max: 400, text: '≤ 400 MB' },
  idleRss: { max: 80, text: '≤ 80 MB' },
  // "flat": RSS grows by at most this much over the last two thirds of the soak
  soakGrowth: { max: 10, text: 'flat: ≤ +10 MB over the last ⅔' },
};

const fixed = (x, digits) => (Number.isFinite(x) ? x.toFixed(digits) : 'n/a');
export const ms = (x) => (!Number.isFinite(x) ? 'n/a' : `${x < 10 ? fixed(x, 2) : x < 100 ? fixed(x, 1) : fixed(x, 0)} ms`);
export const mb = (x) => `${fixed(x, 1)} MB`;
export const rps = (x) => (Number.isFinite(x) ? `${Math.round(x)} req/s` : 'n/a');
export const ratio = (x) => (Number.isFinite(x) ? `${fixed(x, 2)}×` : 'n/a');
const spread = (s) => (s && s.n > 1 ? ` (${fixed(s.min, s.min < 10 ? 2 : 0)}–${fixed(s.max, s.max < 10 ? 2 : 0)})` : '');
const verdict = (ok) => (ok === undefined ? '' : ok ? 'PASS' : 'MISS');
const atMost = (x, max) => (Number.isFinite(x) ? x <= max : false);
const atLeast = (x, min) => (Number.isFinite(x) ? x >= min : false);

/** Rows: { section } or { figure, value, baseline, ratio, target, result }. */
export function buildRows({ startup, throughput, scale, memory }) {
  const rows = [];
  // `name`: how the summary line calls a judged row
  const row = (figure, value, { baseline = '', ratio: r = '', target = '', ok, name } = {}) =>
    rows.push({ figure, value, baseline, ratio: r, target, result: verdict(ok), name: name ?? figure });

  if (startup) {
    rows.push({ section: `Startup: medians of ${startup.runs} fresh processes (min–max)` });
    row('import of the library (fresh process)', ms(startup.importMs.median) + spread(startup.importMs));
    row('first startServer() → first authenticated 200 (fresh process, modules already imported)', ms(startup.firstMs.median) + spread(startup.firstMs));
    row('second startServer() in the same process → first authenticated 200', ms(startup.secondMs.median) + spread(startup.secondMs), {
      name: 'second startServer()',
      target: TARGETS.secondStart.text,
      ok: atMost(startup.secondMs.median, TARGETS.secondStart.max),
    });
    row('  of which startServer() until listening', ms(startup.secondListeningMs.median) + spread(startup.secondListeningMs));
    row('CLI spawn → healthy (`node dist/src/cli.js`, GET /__control/health 200)', ms(startup.cliMs.median) + spread(startup.cliMs), {
      baseline: startup.bareSpawnMs
        ? `bare Express process ${ms(startup.bareSpawnMs.median)}${spread(startup.bareSpawnMs)}; node:http ${ms(startup.nodeSpawnMs.median)}`
        : '',
      ratio: startup.bareSpawnMs ? ratio(startup.cliMs.median / startup.bareSpawnMs.median) : '',
      name: 'CLI spawn → healthy',
      target: TARGETS.cliHealthy.text,
      ok: atMost(startup.cliMs.median, TARGETS.cliHealthy.max),
    });
    row('reset() of the default world (warm; median per process, then of processes)', ms(startup.resetMs.median) + spread(startup.resetMs), {
      name: 'reset()',
      target: TARGETS.reset.text,
      ok: atMost(startup.resetMs.median, TARGETS.reset.max),
    });
    row('reset() of the default world, first call in the process', ms(startup.resetColdMs.median) + spread(startup.resetColdMs));
  }

  if (throughput) {
    const c = throughput.config;
    rows.push({ section: `Throughput: autocannon -c ${c.connections}, ${c.duration} s × ${c.rounds} round(s) after ${c.warmup} s warm-up; median of rounds (min–max); ratios per round, then median` });
    if (throughput.prismNote) row(`Prism: ${throughput.prismNote}`, '');
    for (const [key, op] of Object.entries(throughput.results)) {
      const s = op.servers;
      const fake = s.fake;
      const isOrders = key === 'orders';
      const bytes = (x) => (x ? `, ${x.bytes} B` : '');
      row(`${op.label}: fake${bytes(fake)}`, rps(fake.rps.median) + spread(fake.rps), {
        baseline: s.bare ? `bare Express ${rps(s.bare.rps.median)}${spread(s.bare.rps)}` : '',
        ratio: op.fakeOverBare ? ratio(op.fakeOverBare.median) + spread(op.fakeOverBare) : '',
        ...(isOrders && { name: 'orders req/s vs bare Express', target: TARGETS.ordersVsBare.text, ok: atLeast(op.fakeOverBare?.median, TARGETS.ordersVsBare.min) }),
      });
      if (s.prism) {
        row(`${op.label}: fake vs Prism (Prism answers its own example${bytes(s.prism)})`, rps(fake.rps.median), {
          baseline: `Prism ${rps(s.prism.rps.median)}${spread(s.prism.rps)}${s.prism.errors || s.prism.non2xx ? ` [errors ${s.prism.errors}, non-2xx ${s.prism.non2xx}]` : ''}`,
          ratio: ratio(op.fakeOverPrism.median) + spread(op.fakeOverPrism),
          ...(isOrders && { name: 'orders req/s vs Prism', target: TARGETS.ordersVsPrism.text, ok: atLeast(op.fakeOverPrism?.median, TARGETS.ordersVsPrism.min) }),
        });
      } else if (isOrders) {
        row(`${op.label}: fake vs Prism`, rps(fake.rps.median), { baseline: 'Prism not run', target: TARGETS.ordersVsPrism.text });
      }
      row(`${op.label}: latency p50 / p99`, `${fake.p50} / ${fake.p99} ms`, {
        baseline: [s.bare && `bare ${s.bare.p50} / ${s.bare.p99} ms`, s.prism && `Prism ${s.prism.p50} / ${s.prism.p99} ms`].filter(Boolean).join('; '),
      });
      if (s.fakeSilent) {
        row(`${op.label}: fake with LOG_LEVEL=silent (cost of the log line)`, rps(s.fakeSilent.rps.median) + spread(s.fakeSilent.rps), {
          baseline: `fake, info ${rps(fake.rps.median)}`,
          ratio: op.silentOverInfo ? ratio(op.silentOverInfo.median) : '',
        });
      }
      if (s.bareJson) {
        row(`${op.label}: fake vs bare Express serializing (res.json(value))`, rps(fake.rps.median), {
          baseline: `bare res.json ${rps(s.bareJson.rps.median)}${spread(s.bareJson.rps)}`,
          ratio: op.fakeOverBareJson ? ratio(op.fakeOverBareJson.median) : '',
        });
      }
      const failures = Object.values(s).filter((x) => x.errors || x.non2xx);
      if (failures.length > 0) row(`${op.label}: errors / non-2xx during the runs`, failures.map((x) => `${x.label}: ${x.errors} / ${x.non2xx}`).join('; '));
    }
  }

  if (scale) {
    rows.push({ section: `Scale: ${scale.orders} orders, ${scale.accounts} accounts (CLI); ${scale.shapes[0]?.n ?? 0} sequential requests per query, client-side time` });
    row('CLI spawn → healthy with this world', ms(scale.startupMs));
    for (const shape of scale.shapes) {
      const value = `${ms(shape.p50)} / ${ms(shape.p99)}`;
      row(`GET /v1/orders ${shape.label}: p50 / p99 (${shape.avgItems.toFixed(0)} items/answer)`, value, {
        ...(shape.target && {
          name: `scale ${shape.label}`,
          target: `≤ ${TARGETS.scaleP50.max} ms / ≤ ${TARGETS.scaleP99.max} ms`,
          ok: atMost(shape.p50, TARGETS.scaleP50.max) && atMost(shape.p99, TARGETS.scaleP99.max),
        }),
      });
    }
    const worstP50 = Math.max(...scale.shapes.filter((s) => s.target).map((s) => s.p50));
    const worstP99 = Math.max(...scale.shapes.filter((s) => s.target).map((s) => s.p99));
    row('filtered lists and deep skip, worst of the above: p50 / p99', `${ms(worstP50)} / ${ms(worstP99)}`, {
      name: 'scale, worst query',
      target: `≤ ${TARGETS.scaleP50.max} ms / ≤ ${TARGETS.scaleP99.max} ms`,
      ok: atMost(worstP50, TARGETS.scaleP50.max) && atMost(worstP99, TARGETS.scaleP99.max),
    });
    row('RSS with this world (after the queries; peak in brackets)', `${mb(scale.rssAfterQueries.rss)} (${mb(scale.rssAfterQueries.peak)})`, {
      baseline: `after startup ${mb(scale.rssAfterStart.rss)}`,
      name: 'RSS with the scale world',
      target: TARGETS.scaleRss.text,
      ok: atMost(scale.rssAfterQueries.rss, TARGETS.scaleRss.max),
    });
  }

  if (memory) {
    rows.push({ section: `Memory: the default world in the CLI; ${memory.soak} s load (${memory.requests} requests, autocannon -c 10)` });
    const b = memory.baselines ?? {};
    row('idle RSS (after startup and a few requests)', mb(memory.idleRss), {
      baseline: [b.bare !== undefined && `bare Express ${mb(b.bare)}`, b.prism !== undefined && `Prism ${mb(b.prism)}`].filter(Boolean).join('; '),
      name: 'idle RSS',
      target: TARGETS.idleRss.text,
      ok: atMost(memory.idleRss, TARGETS.idleRss.max),
    });
    row('RSS before → after the load (3 s later in brackets)', `${mb(memory.idleRss)} → ${mb(memory.endRss)} (${mb(memory.settledRss)})`, {
      baseline: `at ${memory.lateFrom.s.toFixed(0)} s: ${mb(memory.lateFrom.rss)}`,
      ratio: `${memory.lateGrowth >= 0 ? '+' : ''}${fixed(memory.lateGrowth, 1)} MB`,
      name: 'RSS flat under load',
      target: TARGETS.soakGrowth.text,
      ok: atMost(memory.lateGrowth, TARGETS.soakGrowth.max),
    });
    const step = Math.max(1, Math.ceil(memory.samples.length / 8));
    const shown = memory.samples.filter((_, i) => i % step === 0 || i === memory.samples.length - 1);
    row('RSS during the load (s: MB)', shown.map((x) => `${x.s.toFixed(0)}: ${x.rss.toFixed(0)}`).join(', '));
  }
  return rows;
}

const COLUMNS = [
  ['figure', 'Figure'],
  ['value', 'Fake'],
  ['baseline', 'Baseline'],
  ['ratio', 'Ratio'],
  ['target', 'Target'],
  ['result', 'Result'],
];

/** A Markdown table, padded so that it reads in a terminal too. */
export function renderTable(rows) {
  const cells = rows.map((r) => (r.section ? [`**${r.section}**`, '', '', '', '', ''] : COLUMNS.map(([k]) => String(r[k] ?? '').replaceAll('|', '\\|'))));
  const header = COLUMNS.map(([, h]) => h);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.filter((_, j) => !rows[j].section).map((c) => c[i].length)));
  const line = (c) => `| ${c.map((x, i) => x.padEnd(widths[i])).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

export function machineHeader({ startedAt, finishedAt, quick, loadBefore, loadAfter, git }) {
  const cpus = os.cpus();
  return [
    `Date: ${startedAt.toISOString()} → ${finishedAt.toISOString()} (${((finishedAt - startedAt) / 1000).toFixed(0)} s)`,
    `Node ${process.version}, ${os.type()} ${os.release()} ${os.arch()}; CPU ${cpus[0]?.model ?? 'unknown'} × ${cpus.length} cores; ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB`,
    `Load average (1 min) before / after: ${loadBefore.toFixed(2)} / ${loadAfter.toFixed(2)}`,
    ...(git ? [`Code: ${git}`] : []),
    `Mode: ${quick ? 'QUICK (smoke run: short durations, fewer runs, a smaller scale world; not comparable to the targets)' : 'full'}`,
  ].join('\n');
}

export function summarize(rows) {
  const judged = rows.filter((r) => r.result);
  const missed = judged.filter((r) => r.result === 'MISS');
  return { pass: judged.length - missed.length, total: judged.length, missed: missed.map((r) => r.name) };
}

/** Notes on how noisy the run was: spreads of repeated measurements, relative to their median. */
export function noiseNotes({ startup, throughput }, { loadBefore, loadAfter }) {
  const notes = [];
  const rel = (s) => (s.max - s.min) / s.median;
  if (startup) {
    const parts = ['secondMs', 'cliMs', 'resetMs'].map((k) => `${k.replace('Ms', '')} ${Math.round(rel(startup[k]) * 100)} %`);
    notes.push(`Startup, (max − min) / median over ${startup.runs} runs: ${parts.join(', ')}.`);
  }
  if (throughput && throughput.config.rounds > 1) {
    const parts = [];
    for (const op of Object.values(throughput.results)) {
      for (const s of Object.values(op.servers)) parts.push(`${op.label} on ${s.label}: ${Math.round(rel(s.rps) * 100)} %`);
    }
    notes.push(`Throughput, (max − min) / median of req/s over ${throughput.config.rounds} rounds: ${parts.join('; ')}.`);
    const ratios = Object.values(throughput.results).filter((op) => op.fakeOverBare).map((op) => `${op.label} ${ratio(op.fakeOverBare.min)}–${ratio(op.fakeOverBare.max)}`);
    notes.push(`Fake ÷ bare Express per round ranged: ${ratios.join('; ')}.`);
  }
  notes.push(`Load average (1 min) went from ${loadBefore.toFixed(2)} to ${loadAfter.toFixed(2)} on ${os.cpus().length} cores.`);
  return notes;
}
