import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { cleanEnv, ROOT } from './cli.js';

/**
 * A partner's project inside the repository's test temp area (`.vitest-tmp/`, ignored by git) where
 * `investment-api-fake` is THIS package as built (`dist/`, through its package.json "exports"), as it would be
 * installed: an exported session file is run there by vitest, as the platform's team runs an attached one.
 */
export class ReplayProject {
  readonly dir: string;

  constructor() {
    const area = join(ROOT, '.vitest-tmp');
    mkdirSync(area, { recursive: true });
    this.dir = mkdtempSync(join(area, 'replay-'));
    mkdirSync(join(this.dir, 'node_modules'));
    symlinkSync(ROOT, join(this.dir, 'node_modules', 'investment-api-fake'), 'dir');
    writeFileSync(
      join(this.dir, 'package.json'),
      JSON.stringify({ name: 'bug-report', private: true, type: 'module' }),
    );
    // its own config, so the repository's (its aliases to the sources, its projects) is not used
    writeFileSync(
      join(this.dir, 'vitest.config.mjs'),
      "export default { test: { include: ['*.test.ts'], testTimeout: 20000 } };\n",
    );
  }

  /** Runs one file under vitest: whether it passed, and what vitest printed (colours off). */
  run(fileName: string, text: string): Promise<{ passed: boolean; output: string }> {
    writeFileSync(join(this.dir, fileName), text);
    return new Promise((resolve) => {
      execFile(
        'npx',
        ['vitest', 'run', fileName],
        { cwd: this.dir, env: { ...cleanEnv, NO_COLOR: '1', FORCE_COLOR: '0' } },
        (error, stdout, stderr) => resolve({ passed: error === null, output: `${stdout}\n${stderr}` }),
      );
    });
  }

  /** Whether a file named `name` exists in the project (what a file that ran code it was not meant to would leave). */
  holds(name: string): boolean {
    return existsSync(join(this.dir, name));
  }

  /**
   * One file type-checked as a partner's strict project would (`noUnusedLocals` and `noUnusedParameters` too), against
   * the package's own declarations: the diagnostics, as `file(line,col): message`.
   */
  typeErrors(fileName: string, text: string): string[] {
    const path = join(this.dir, fileName);
    writeFileSync(path, text);
    const program = ts.createProgram([path], {
      strict: true,
      noUnusedLocals: true,
      noUnusedParameters: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts'],
      types: ['node'],
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      return `${d.file?.fileName.replace(`${this.dir}/`, '') ?? ''}(${at ? `${at.line + 1},${at.character + 1}` : ''}): ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
