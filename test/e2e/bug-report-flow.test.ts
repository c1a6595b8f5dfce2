// docs/test-suites.md, "Make it fail where the fake is wrong", followed as written: a session exported as a vitest
// file passes as it is; the page's three edits (its diff block applied to the step its title names, the steps
// after it cut) make it fail at that step, naming it and the fake's answer; and against a fake that answers as the
// reporter expected (here: this package with the client's lei_required setting ignored) it passes.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchToken, startServer } from '../../src/index.js';
import { ROOT } from '../support/cli.js';
import { markedSnippet } from '../support/doc-pages.js';
import { ReplayProject } from '../support/replay-project.js';

/** The page's diff: the step's title (its first line), the lines it removes and those it adds. */
function pageEdit(): { title: string; removed: string; added: string } {
  const lines = markedSnippet('bug-report-edit', 'diff').trimEnd().split('\n');
  const body = (prefix: string) =>
    lines
      .filter((l) => l.startsWith(prefix))
      .map((l) => l.slice(1))
      .join('\n');
  const title = /it\("([^"]+)"/.exec(lines[0]!)?.[1];
  if (!title) throw new Error(`the diff's first line names no step: ${lines[0]}`);
  return { title, removed: body('-'), added: body('+') };
}

/** The three edits of the page: the step found by its title, its assertions edited, every `it` after it cut. */
function followThePage(exported: string): string {
  const { title, removed, added } = pageEdit();
  const start = exported.indexOf(`  it(${JSON.stringify(title)}, async () => {`);
  expect(start, `a step titled ${title}`).toBeGreaterThan(-1);
  const end = exported.indexOf('\n  });\n', start) + '\n  });\n'.length;
  const step = exported.slice(start, end);
  expect(step, 'the lines the diff removes, in that step').toContain(removed);
  const close = exported.lastIndexOf('\n});');
  return exported.slice(0, start) + step.replace(removed, added) + exported.slice(close);
}

/** A project where `investment-api-fake` answers as the reporter expected: business accounts need no LEI. */
function fixedFakeProject(): ReplayProject {
  const project = new ReplayProject();
  const wrapper = join(project.dir, 'node_modules', 'investment-api-fake');
  rmSync(wrapper);
  mkdirSync(wrapper);
  writeFileSync(
    join(wrapper, 'package.json'),
    JSON.stringify({ name: 'investment-api-fake', type: 'module', exports: './index.mjs' }),
  );
  const built = JSON.stringify(join(ROOT, 'dist/bundle/index.js'));
  writeFileSync(
    join(wrapper, 'index.mjs'),
    `import { startServer as start } from ${built};\nexport * from ${built};\n` +
      'export const startServer = (options = {}) => start({ ...options, clients: options.clients?.map((c) => ({ ...c, settings: { ...c.settings, lei_required: false } })) });\n',
  );
  return project;
}

describe("the page's bug-report flow", () => {
  let exported: string;
  let project: ReplayProject;
  let fixed: ReplayProject;

  beforeAll(async () => {
    [project, fixed] = [new ReplayProject(), fixedFakeProject()];
    // the page's example: a client with lei_required, a business account without an LEI, then more of the session
    const fake = await startServer({
      seed: 1,
      clients: [{ client_id: 'acme', client_secret: 'acme-secret', settings: { lei_required: true } }],
    });
    try {
      const token = await fetchToken(fake.url, 'acme', 'acme-secret');
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const created = await fetch(`${fake.url}/v1/accounts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ type: 'business', external_id: 'acme-gmbh', business_name: 'Acme GmbH' }),
      });
      expect(created.status).toBe(422);
      expect((await fetch(`${fake.url}/v1/accounts?limit=1`, { headers })).status).toBe(200);
      exported = fake.exportRequests('vitest');
    } finally {
      await fake.stop();
    }
  });
  afterAll(() => {
    if (process.env.KEEP_REPLAY) return;
    project?.remove();
    fixed?.remove();
  });

  it("the file as exported passes: it asserts the fake's own answers", async () => {
    const { passed, output } = await project.run('as-exported.test.ts', exported);
    expect(passed, output).toBe(true);
  }, 120_000);

  it("after the page's edits it fails at the step, naming it and the fake's answer, and nothing after it runs", async () => {
    const edited = followThePage(exported);
    expect(edited).not.toContain('3. GET /v1/accounts');
    const { passed, output } = await project.run('session.test.ts', edited);
    expect(passed, output).toBe(false);
    expect(output).toContain('2. POST /v1/accounts → 422 field_required: expected 422 to be 201');
    expect(output).toMatch(/1 failed \| 1 passed/);
  }, 120_000);

  it('the edited file turns green against a fake that answers as the reporter expected', async () => {
    const { passed, output } = await fixed.run('session.test.ts', followThePage(exported));
    expect(passed, output).toBe(true);
    expect(output).toMatch(/Tests\s+2 passed/);
  }, 120_000);
});
