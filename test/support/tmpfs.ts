import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, it } from 'vitest';

/** Why this machine cannot mount a tmpfs (not root, no mount), or undefined when it can. */
const cannotMount = ((): string | undefined => {
  const probe = mkdtempSync(join(tmpdir(), 'tmpfs-probe-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
    return undefined;
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? '').trim();
    return stderr || (error as Error).message;
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
})();

/**
 * A test on a real small file system. CI runs as root, so there a machine that cannot mount one fails the test (a
 * skipped test proves nothing); elsewhere it is skipped, saying why.
 */
export function itOnTmpfs(name: string, test: () => Promise<void>, timeout?: number): void {
  if (cannotMount === undefined) return void it(name, test, timeout);
  if (process.env.CI)
    return void it(name, () =>
      Promise.reject(new Error(`cannot mount a tmpfs (${cannotMount}): under CI this test must run as root`)),
    );
  it.skip(`${name} (skipped: cannot mount a tmpfs here: ${cannotMount}; run as root)`, test);
}

/** Small tmpfs folders a test file mounts: unmounted and removed after each test. */
export function tmpfsFixtures() {
  const mounts: string[] = [];
  afterEach(() => {
    for (const dir of mounts.splice(0)) {
      execFileSync('umount', ['-l', dir]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return {
    /** A tmpfs of `size` (mount's syntax: `64k`, `4m`) at a new folder. */
    mount(size: string): string {
      const dir = mkdtempSync(join(tmpdir(), 'tmpfs-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
      mounts.push(dir);
      return dir;
    },
    /** The same tmpfs with room for more (its files kept). */
    grow(dir: string, size: string): void {
      execFileSync('mount', ['-o', `remount,size=${size}`, dir], { stdio: 'pipe' });
    },
  };
}
