/**
 * Stops the fake as `docker stop` would (SIGTERM: it answers what is in flight, writes STATE_DIR and exits; killed
 * after 10 s), keeping its output in the log file: the container is then removed, the process group is gone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { docker, dockerLogs } from './docker.js';
import type { Runner } from './state.js';

const GRACE_S = 10;

export async function stopFake(runner: Runner, logFile: string): Promise<void> {
  if (runner.kind === 'container') {
    await docker(['stop', '--time', String(GRACE_S), runner.id]).catch(() => undefined);
    writeFileSync(logFile, await dockerLogs(runner.id));
    await docker(['rm', '--force', runner.id]);
    return;
  }
  if (!signal(runner.pid, 'SIGTERM')) return;
  const deadline = Date.now() + GRACE_S * 1000;
  // npx and npm's shell go at once; the fake under them when it has drained and written STATE_DIR
  while ((alive(runner.pid) || groupAlive(runner.pid)) && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  if (alive(runner.pid) || groupAlive(runner.pid)) signal(runner.pid, 'SIGKILL');
}

/** The whole group (npx, npm's shell and the fake under them), else the process alone; false when it is gone. */
function signal(pid: number, name: NodeJS.Signals): boolean {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, name);
      return true;
    } catch {
      // next
    }
  }
  return false;
}

function groupAlive(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Running, not exited: a zombie (exited, not yet reaped by whoever adopted it) counts as gone. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  return !(existsSync(stat) && / Z /.test(readFileSync(stat, 'utf8').replace(/^.*\)/, ')')));
}
