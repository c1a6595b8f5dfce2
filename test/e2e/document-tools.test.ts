import { execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { bodyText, documentedExamples, readDocument } from '../../scripts/contract-examples.mjs';

// The whole document as the tools a partner points at it load it: Specmatic (its jar from the npm package
// `specmatic`, on Java 17), Stoplight's Prism (`prism mock`), and the linters Redocly and Spectral with the configs
// the package ships. .ci/run installs them, each in a folder of its own, and names them in SPECMATIC_JAR, PRISM_CLI,
// REDOCLY_CLI and SPECTRAL_CLI. Locally the tests are skipped without them; under CI=true they fail,
// never skip. Specmatic's contract tests from the examples run in .ci/run (scripts/specmatic-contract.mjs).
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DOCUMENT = 'src/api/openapi.yaml';
const ci = process.env.CI === 'true';
const jar = process.env.SPECMATIC_JAR;
const java = spawnSync('java', ['-version']).status === 0;
const specmatic = jar !== undefined && existsSync(jar) && java;
const prismCli = process.env.PRISM_CLI;
const prism = prismCli !== undefined && existsSync(prismCli);
const redoclyCli = process.env.REDOCLY_CLI;
const redocly = redoclyCli !== undefined && existsSync(redoclyCli);
const spectralCli = process.env.SPECTRAL_CLI;
const spectral = spectralCli !== undefined && existsSync(spectralCli);
const examples = documentedExamples(readDocument());

function run(file: string, args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      {
        cwd: ROOT,
        env: { ...process.env, SPECMATIC_DISABLE_TELEMETRY: 'true' },
        timeout: 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
      .once('error', reject)
      .listen(0, '127.0.0.1', () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
  });
}

describe('the whole document in the tools partners point at it', () => {
  it('is given them where CI runs', () => {
    if (ci) {
      expect(
        specmatic,
        'SPECMATIC_JAR must name the jar of the npm package specmatic, and java must run it (.ci/run installs both)',
      ).toBe(true);
      expect(prism, 'PRISM_CLI must name @stoplight/prism-cli (.ci/run installs it)').toBe(true);
      expect(redocly, 'REDOCLY_CLI must name @redocly/cli (.ci/run installs it)').toBe(true);
      expect(spectral, 'SPECTRAL_CLI must name @stoplight/spectral-cli (.ci/run installs it)').toBe(true);
    }
  });

  it.skipIf(!specmatic && !ci)('loads in Specmatic, every inline example valid', { timeout: 150_000 }, async () => {
    const { code, output } = await run('java', [
      '-jar',
      jar!,
      'examples',
      'validate',
      `--spec-file=${DOCUMENT}`,
      '--examples-to-validate=INLINE',
    ]);
    expect(output).not.toMatch(/ContractException|Invalid Regex|Could not determine name/);
    expect(output).toMatch(/API Paths: \d+, API Operations: \d+/);
    // Specmatic reads no 415 response example inline (it tests 415 only from example files); the examples of
    // src/api/examples/ are files, and the control plane names none (its `example`s are documentation only).
    const inline = examples.filter((e) => !e.file && e.status !== 415);
    expect(output).not.toMatch(/WARNING: Ignoring/);
    expect(output).toContain(`All ${inline.length} example(s) are valid.`);
    expect(code, output.slice(-2000)).toBe(0);
  });

  // The commands the shipped configs' headers give, warnings included: a finding is a failure.
  it.skipIf(!redocly && !ci)("reports nothing in Redocly's recommended rules, with redocly.yaml", async () => {
    const { code, output } = await run(process.execPath, [
      redoclyCli!,
      'lint',
      DOCUMENT,
      '--config',
      'redocly.yaml',
      '--format=json',
    ]);
    expect(code, output.slice(-2000)).toBe(0);
    const report = JSON.parse(output.slice(output.indexOf('{'), output.lastIndexOf('}') + 1));
    expect(report.problems, output.slice(-2000)).toEqual([]);
    expect(output).not.toMatch(/Unused rules/);
  });

  it.skipIf(!spectral && !ci)("reports nothing in Spectral's recommended rules, with .spectral.yaml", async () => {
    const { code, output } = await run(process.execPath, [
      spectralCli!,
      'lint',
      DOCUMENT,
      '--ruleset',
      '.spectral.yaml',
      '--fail-severity=hint',
    ]);
    expect(code, output.slice(-2000)).toBe(0);
    expect(output).toMatch(/No results with a severity of 'hint' or higher found/);
  });

  it.skipIf(!prism && !ci)(
    'is mocked by Prism, which answers each success example by its name',
    { timeout: 150_000 },
    async () => {
      const port = await freePort();
      const child = spawn(
        process.execPath,
        [prismCli!, 'mock', DOCUMENT, '--host', '127.0.0.1', '--port', String(port), '--errors'],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let log = '';
      child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
      try {
        for (let i = 0; i < 600 && !/Prism is listening/.test(log); i++) {
          if (child.exitCode !== null) break;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(log).toMatch(/Prism is listening/);
        for (const e of examples.filter((x) => x.status < 300)) {
          const query = new URLSearchParams(e.request.query).toString();
          const headers: Record<string, string> = { prefer: `code=${e.status}, example=${e.name}` };
          if (e.path !== '/oauth2/token') headers.authorization = 'Bearer any-token-prism-takes';
          if (e.request.contentType) headers['content-type'] = e.request.contentType;
          const response = await fetch(`http://127.0.0.1:${port}${e.request.path}${query ? `?${query}` : ''}`, {
            method: e.method,
            headers,
            body: bodyText(e.request),
          });
          expect(`${e.name}: ${response.status}`).toBe(`${e.name}: ${e.status}`);
          expect(await response.json(), e.name).toEqual(e.answer);
        }
      } finally {
        child.kill();
      }
    },
  );
});
