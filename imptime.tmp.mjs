const t0 = performance.now();
const mods = process.argv.slice(2);
let last = t0;
for (const m of mods) { await import(m); const t = performance.now(); console.log(m.padEnd(50), (t - last).toFixed(1)); last = t; }
console.log('total', (performance.now() - t0).toFixed(1), 'rss', (process.memoryUsage().rss/1048576).toFixed(1));
