// Checks the container recipe without a container engine:
//  (a) lints the Dockerfile with dockerfile-utils,
//  (b) asserts the recipe's policies statically,
//  (c) performs the Dockerfile's build steps on the host (scripts/dockerfile-steps.mjs),
//      then starts the final stage's CMD and checks health + graceful SIGTERM shutdown.
// Part (c) runs two `npm ci`s and is slow; set SKIP_DOCKER_STEPS=1 to skip it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { validate } from 'dockerfile-utils';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/cli.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const dockerfilePath = join(root, 'Dockerfile');
const dockerfile = readFileSync(dockerfilePath, 'utf8');

interface Instruction {
  line: number;
  keyword: string;
  args: string;
}
interface Stage {
  image: string;
  name: string;
  instructions: Instruction[];
}
interface FinalStage {
  dir: string;
  env: Record<string, string>;
  cmd: string[] | null;
  entrypoint: string[] | null;
  user: string;
  exposed: string[];
  healthcheck: { options: Record<string, string>; cmd: string[] } | null;
  stopSignal: string | null;
}
interface DockerfileSteps {
  parseDockerfile(text: string): Instruction[];
  loadDockerignore(context: string): (relativePath: string) => boolean;
  runDockerfile(options: {
    dockerfile: string;
    context: string;
    workRoot: string;
    env?: Record<string, string>;
    log?: (line: string) => void;
  }): Promise<{ stages: Record<string, string>; final: FinalStage }>;
}

// Plain .mjs without type declarations: import it dynamically and type it here.
const stepsUrl = pathToFileURL(join(root, 'scripts/dockerfile-steps.mjs')).href;
let steps: DockerfileSteps;
const stages: Stage[] = [];

beforeAll(async () => {
  steps = (await import(stepsUrl)) as DockerfileSteps;
  for (const ins of steps.parseDockerfile(dockerfile)) {
    if (ins.keyword === 'FROM') {
      const [image = '', as, name] = ins.args.split(/\s+/);
      stages.push({ image, name: as?.toUpperCase() === 'AS' && name ? name : String(stages.length), instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(ins);
    }
  }
});

const final = (): Stage => stages.at(-1)!;
const all = (stage: Stage, keyword: string): Instruction[] => stage.instructions.filter((i) => i.keyword === keyword);
const last = (stage: Stage, keyword: string): Instruction | undefined => all(stage, keyword).at(-1);
const copyParts = (ins: Instruction) => {
  const words = ins.args.split(/\s+/);
  const flags = Object.fromEntries(words.filter((w) => w.startsWith('--')).map((w) => w.slice(2).split('=')));
  const paths = words.filter((w) => !w.startsWith('--'));
  return { from: flags.from as string | undefined, sources: paths.slice(0, -1), dest: paths.at(-1) ?? '' };
};

describe('Dockerfile', () => {
  it('(a) passes dockerfile-utils lint with no errors or warnings', () => {
    const diagnostics = validate(dockerfile);
    expect(diagnostics.map((d) => `line ${d.range.start.line + 1}: ${d.message}`)).toEqual([]);
  });

  describe('(b) policies', () => {
    it('is multi-stage with tag-pinned base images', () => {
      expect(stages.length).toBeGreaterThanOrEqual(2);
      const names = new Set(stages.map((s) => s.name));
      for (const { image } of stages.filter((s) => !names.has(s.image))) {
        expect(image).toMatch(/^[\w./-]+:[\w.-]+(@sha256:[0-9a-f]{64})?$/);
        expect(image).not.toMatch(/:latest\b/);
      }
    });

    it('runs the final stage as a non-root user', () => {
      const user = last(final(), 'USER')?.args.split(':')[0];
      expect(user).toBeDefined();
      expect(['root', '0']).not.toContain(user);
    });

    it('exposes 8080 with a matching PORT and production NODE_ENV', () => {
      expect(all(final(), 'EXPOSE').flatMap((i) => i.args.split(/\s+/))).toContain('8080');
      const env = all(final(), 'ENV')
        .map((i) => i.args)
        .join(' ');
      expect(env).toMatch(/\bPORT=8080\b/);
      expect(env).toMatch(/\bNODE_ENV=production\b/);
    });

    it('has a HEALTHCHECK on /__control/health that needs no curl', () => {
      const hc = last(final(), 'HEALTHCHECK')?.args ?? '';
      expect(hc).toContain('/__control/health');
      expect(hc).not.toMatch(/\b(curl|wget)\b/);
    });

    it('takes node_modules from a stage that installs with npm ci --omit=dev', () => {
      const nodeModules = all(final(), 'COPY')
        .map(copyParts)
        .filter((c) => c.sources.some((s) => /node_modules\/?$/.test(s)));
      expect(nodeModules).toHaveLength(1);
      const source = stages.find((s) => s.name === nodeModules[0]!.from);
      expect(source, 'node_modules must come from another stage').toBeDefined();
      expect(all(source!, 'RUN').some((r) => /\bnpm ci\b.*--omit=dev\b/.test(r.args))).toBe(true);
    });

    it('does not run lifecycle scripts in dependency-only installs', () => {
      for (const stage of stages) {
        const runs = all(stage, 'RUN').map((r) => r.args);
        const buildIndex = runs.findIndex((r) => /\bnpm run build\b/.test(r));
        runs.forEach((r, i) => {
          // `prepare` would run the build before the sources are there.
          if (/\bnpm ci\b/.test(r) && (buildIndex === -1 || i < buildIndex)) expect(r).toContain('--ignore-scripts');
        });
      }
    });

    it('uses exec-form CMD and STOPSIGNAL SIGTERM', () => {
      const cmd = last(final(), 'CMD')?.args ?? '';
      const argv: unknown = JSON.parse(cmd);
      expect(argv).toEqual(['node', 'dist/bundle/cli.js']);
      expect(all(final(), 'ENTRYPOINT')).toHaveLength(0);
      expect(last(final(), 'STOPSIGNAL')?.args ?? 'SIGTERM').toBe('SIGTERM');
    });

    it('.dockerignore excludes node_modules and .git but keeps everything the build copies', () => {
      const ignored = steps.loadDockerignore(root);
      for (const p of ['node_modules', 'node_modules/x/index.js', '.git', '.git/HEAD', 'dist/src/cli.js', 'coverage']) {
        expect(ignored(p), p).toBe(true);
      }
      const contextSources = stages.flatMap((s) =>
        all(s, 'COPY')
          .map(copyParts)
          .filter((c) => !c.from)
          .flatMap((c) => c.sources),
      );
      expect(contextSources.length).toBeGreaterThan(0);
      for (const src of contextSources) expect(ignored(src.replace(/^\.\/|\/$/g, '')), src).toBe(false);
    });
  });
});

const waitForExit = (child: ChildProcess, ms: number) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((ok, fail) => {
    if (child.exitCode !== null || child.signalCode !== null)
      return ok({ code: child.exitCode, signal: child.signalCode });
    const timer = setTimeout(() => fail(new Error(`process did not exit within ${ms} ms`)), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      ok({ code, signal });
    });
  });

describe.skipIf(process.env.SKIP_DOCKER_STEPS === '1')('(c) Dockerfile steps performed without Docker', () => {
  let workRoot: string | undefined;
  let server: ChildProcess | undefined;

  afterAll(() => {
    if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    if (workRoot) rmSync(workRoot, { recursive: true, force: true });
  });

  it('builds, serves /__control/health and /docs as a lean production tree and stops cleanly on SIGTERM', async () => {
    workRoot = mkdtempSync(join(tmpdir(), 'dockerfile-steps-'));
    const hostEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? workRoot };
    const { final } = await steps.runDockerfile({
      dockerfile: dockerfilePath,
      context: root,
      workRoot,
      // Same `npm ci`, but allowed to use this machine's npm cache.
      env: { ...hostEnv, npm_config_prefer_offline: 'true', npm_config_update_notifier: 'false' },
    });

    // Only the runtime tree: no sources, no dev dependencies.
    expect(readdirSync(final.dir).sort()).toEqual(['dist', 'node_modules', 'package.json']);
    expect(existsSync(join(final.dir, 'dist/bundle/cli.js'))).toBe(true);
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.entries(lock.packages)
      .filter(([p, meta]) => p.startsWith('node_modules/') && meta.dev)
      .map(([p]) => p);
    expect(devOnly).toEqual(expect.arrayContaining(['node_modules/typescript', 'node_modules/vitest']));
    expect(devOnly.filter((p) => existsSync(join(final.dir, p)))).toEqual([]);
    const tsFiles = (readdirSync(join(final.dir, 'dist'), { recursive: true }) as string[]).filter(
      (f) => /\.[cm]?ts$/.test(f) && !/\.d\.[cm]?ts$/.test(f),
    );
    expect(tsFiles).toEqual([]);

    // Start the image's command the way the container would.
    const port = await freePort();
    const env = { ...hostEnv, ...final.env, PORT: String(port) };
    const [command, ...args] = [...(final.entrypoint ?? []), ...(final.cmd ?? [])];
    let output = '';
    server = spawn(command!, args, { cwd: final.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    server.stdout?.on('data', (d: Buffer) => {
      output += d.toString();
    });
    server.stderr?.on('data', (d: Buffer) => {
      output += d.toString();
    });

    const deadline = Date.now() + 15_000;
    let healthy = false;
    while (!healthy && Date.now() < deadline && server.exitCode === null) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/__control/health`, { signal: AbortSignal.timeout(1_000) });
        healthy = res.status === 200 && ((await res.json()) as { status?: string }).status === 'ok';
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    expect(healthy, `server never became healthy; output:\n${output}`).toBe(true);

    // The HEALTHCHECK command itself must succeed against the running server.
    expect(final.healthcheck).not.toBeNull();
    const [hcCommand, ...hcArgs] = final.healthcheck!.cmd;
    const probe = spawn(hcCommand!, hcArgs, { cwd: final.dir, env, stdio: 'ignore' });
    expect((await waitForExit(probe, 10_000)).code).toBe(0);

    // /docs from the build's own copy of Swagger UI: swagger-ui-dist is a development dependency, not in the image.
    expect(existsSync(join(final.dir, 'node_modules/swagger-ui-dist'))).toBe(false);
    for (const path of ['/docs', '/docs/assets/swagger-ui.css', '/docs/assets/swagger-ui-bundle.js']) {
      expect((await fetch(`http://127.0.0.1:${port}${path}`)).status, path).toBe(200);
    }

    server.kill((final.stopSignal ?? 'SIGTERM') as NodeJS.Signals);
    const exit = await waitForExit(server, 5_000);
    expect(exit, `output:\n${output}`).toEqual({ code: 0, signal: null });
  }, 240_000);
});
