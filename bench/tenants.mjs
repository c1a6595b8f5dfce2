// Memory per tenant (issue 13): heap and RSS each tenant adds (a copy of the default world, its clock, faults and
// client), and per record, measured by bench/tenant-cost.mjs in a child process with --expose-gc, against the
// suite's copy of dist/. Reported beside MAX_TENANTS (the default cap) × that cost.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchConfig, dist, progress } from './lib.mjs';

const CHILD = fileURLToPath(new URL('./tenant-cost.mjs', import.meta.url));

export async function measureTenants(config = benchConfig(), { node = process.execPath } = {}) {
  const env = {
    ...process.env,
    BENCH_DIST_ROOT: dist.root,
    TENANTS: String(config.tenants),
    ORDERS: config.quick ? '1000' : '5000',
    ACCOUNTS: config.quick ? '200' : '1000',
  };
  progress(`tenants: ${env.TENANTS} tenants, ${env.ORDERS} orders, ${env.ACCOUNTS} accounts`);
  return new Promise((resolve, reject) => {
    execFile(
      node,
      ['--expose-gc', CHILD, '--json'],
      { env, timeout: 600_000, maxBuffer: 1 << 24 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`tenant-cost failed: ${error.message}\n${stderr}`));
        else resolve(JSON.parse(stdout.trim().split('\n').at(-1)));
      },
    );
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(await measureTenants());
