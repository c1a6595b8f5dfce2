/** The docker CLI, as the runner has it. */
import { execFile } from 'node:child_process';

/** Runs `docker …` and resolves its standard output, trimmed; a failure rejects with what docker said. */
export function docker(args: readonly string[], env?: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('docker', args, { env: env ?? process.env, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`docker ${args[0]} failed: ${stderr.trim() || error.message}`));
      else resolve(stdout.trim());
    });
  });
}

/** `docker logs`, both streams: the container's output, as the fake wrote it. */
export function dockerLogs(id: string, tail?: number): Promise<string> {
  return new Promise((resolve) => {
    const args = ['logs', ...(tail !== undefined ? ['--tail', String(tail)] : []), id];
    execFile('docker', args, { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve(error ? `(docker logs failed: ${error.message})` : `${stdout}${stderr}`),
    );
  });
}
