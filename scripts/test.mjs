// `npm test`: the formatter and linter (Biome), the unused-code check (knip), then the type check and the fast vitest
// project side by side. The type check is one thread and vitest's workers leave part of a core idle between files:
// run together, they finish in about the time of the longer (docs/development.md, "How long `npm test` takes").
// The type check's output is held until vitest has written its report; the exit code is the first failure's.
import { spawn } from 'node:child_process';

const run = (command, args, { quiet = false } = {}) =>
  new Promise((resolve) => {
    const output = [];
    const child = spawn(command, args, { stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    if (quiet) for (const stream of [child.stdout, child.stderr]) stream.on('data', (chunk) => output.push(chunk));
    child.on('close', (code) => resolve({ code: code ?? 1, output: Buffer.concat(output) }));
  });

for (const args of [
  ['biome', 'check', '.'],
  ['knip', '--cache'],
]) {
  const { code } = await run('npx', args);
  if (code !== 0) process.exit(code);
}

// `npm run typecheck`, its output held
const typechecked = run('npm', ['run', '-s', 'typecheck'], { quiet: true });
// `npm test -- <files or vitest options>` narrows or changes the vitest run
const tests = await run('npx', ['vitest', 'run', '--project', 'fast', ...process.argv.slice(2)]);
const types = await typechecked;
if (types.code !== 0) {
  process.stderr.write('\nThe type check failed (npm run typecheck):\n');
  process.stderr.write(types.output);
}
process.exit(types.code || tests.code);
