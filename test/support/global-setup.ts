import { execFileSync } from 'node:child_process';

/** The CLI tests spawn the compiled server: build it once, before any test file runs. */
export default function buildOnce(): void {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: new URL('../..', import.meta.url).pathname, stdio: 'inherit' });
}
