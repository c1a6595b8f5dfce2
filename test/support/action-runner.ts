/**
 * The GitHub runner's side of a JavaScript action, as its docs and `@actions/core` define it, for running
 * action.yml's scripts here: every input as `INPUT_<NAME>` (action.yml's defaults for those not given), the file
 * commands `GITHUB_OUTPUT`, `GITHUB_STATE`, `GITHUB_ENV` and `GITHUB_STEP_SUMMARY` as temp files, then `post` with
 * `STATE_<name>` for each state `main` saved and the variables a step exported. One `RunnerJob` is one job.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { cleanEnv, ROOT } from './cli.js';

export interface StepRun {
  code: number | null;
  /** stdout and stderr: the step's log, workflow commands (`::error::`) included. */
  log: string;
  outputs: Record<string, string>;
}

interface ActionMetadata {
  inputs: Record<string, { default?: string }>;
  runs: { main: string; post?: string };
}

/** `name<<delimiter`…`delimiter` blocks (and the older `name=value` lines), as the runner reads them. */
function readFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      values[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return values;
}

export class RunnerJob {
  readonly dir = mkdtempSync(join(tmpdir(), 'runner-job-'));
  /** Each step's summary file, as the runner makes one per step and shows them one after another. */
  private readonly summaries: string[] = [];
  private readonly metadata = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionMetadata;
  private inputs: Record<string, string> = {};
  /** What `main` saved (`GITHUB_STATE`), given to `post` as `STATE_<name>`. */
  state: Record<string, string> = {};
  /** What the job's steps exported (`GITHUB_ENV`), in every later step's environment. */
  exported: Record<string, string> = {};

  /** `main`, with these inputs (and action.yml's defaults for the rest). */
  async main(inputs: Record<string, string>): Promise<StepRun> {
    this.inputs = {
      ...Object.fromEntries(Object.entries(this.metadata.inputs).map(([name, input]) => [name, input.default ?? ''])),
      ...inputs,
    };
    const run = await this.step(this.metadata.runs.main, {});
    this.state = { ...this.state, ...readFileCommands(readFileSync(join(this.dir, 'state'), 'utf8')) };
    return run;
  }

  /** `post`: the same inputs, and `main`'s state. */
  post(): Promise<StepRun> {
    return this.step(
      this.metadata.runs.post!,
      Object.fromEntries(Object.entries(this.state).map(([name, value]) => [`STATE_${name}`, value])),
    );
  }

  /** The `report` step (report/action.yml), a later step of the same job. */
  report(): Promise<StepRun> {
    const metadata = parse(readFileSync(join(ROOT, 'report/action.yml'), 'utf8')) as ActionMetadata;
    return this.step(join('report', metadata.runs.main), {}, {});
  }

  /** The job summary so far: every step's, in order. */
  summary(): string {
    return this.summaries.map((file) => readFileSync(file, 'utf8')).join('');
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private async step(
    script: string,
    extra: Record<string, string>,
    inputs: Record<string, string> = this.inputs,
  ): Promise<StepRun> {
    const summaryFile = join(this.dir, `step-summary-${this.summaries.length + 1}.md`);
    this.summaries.push(summaryFile);
    for (const file of ['output', 'state', 'env']) writeFileSync(join(this.dir, file), '');
    writeFileSync(summaryFile, '');
    const env: NodeJS.ProcessEnv = {
      ...cleanEnv,
      ...this.exported,
      ...Object.fromEntries(
        Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value]),
      ),
      ...extra,
      GITHUB_ACTIONS: 'true',
      RUNNER_TEMP: this.dir,
      GITHUB_OUTPUT: join(this.dir, 'output'),
      GITHUB_STATE: join(this.dir, 'state'),
      GITHUB_ENV: join(this.dir, 'env'),
      GITHUB_STEP_SUMMARY: summaryFile,
    };
    const { code, log } = await new Promise<{ code: number | null; log: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [join(ROOT, script)],
        { cwd: this.dir, env, maxBuffer: 16 * 1024 * 1024 },
        (_error, stdout, stderr) => resolve({ code: child.exitCode, log: `${stdout}${stderr}` }),
      );
    });
    this.exported = { ...this.exported, ...readFileCommands(readFileSync(join(this.dir, 'env'), 'utf8')) };
    return { code, log, outputs: readFileCommands(readFileSync(join(this.dir, 'output'), 'utf8')) };
  }
}
