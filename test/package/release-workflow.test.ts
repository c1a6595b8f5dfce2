// Nothing can be pushed from here: the release workflow is checked as text for what a release must do.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { expect, it } from 'vitest';
import { ROOT } from '../support/cli.js';

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, string>;
  env?: Record<string, string>;
}
interface Job {
  permissions?: Record<string, string>;
  needs?: string[];
  steps: Step[];
}
const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
  on: { push: { tags: string[] } };
  jobs: Record<string, Job>;
};
const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
const using = (action: string) => steps.filter((s) => s.uses?.startsWith(`${action}@`));

it('runs on version tags only', () => {
  expect(workflow.on).toEqual({ push: { tags: ['v*.*.*'] } });
});

it('builds the image for linux/amd64 and linux/arm64 and pushes it to GHCR under the repository owner', () => {
  const [build] = using('docker/build-push-action');
  expect(
    build?.with?.platforms
      ?.split(',')
      .map((p) => p.trim())
      .sort(),
  ).toEqual(['linux/amd64', 'linux/arm64']);
  expect(build?.with?.push).toBe(true);
  expect(using('docker/setup-qemu-action')).toHaveLength(1);
  expect(using('docker/login-action')[0]?.with?.registry).toBe('ghcr.io');
  expect(using('docker/metadata-action')[0]?.with?.images).toBe(
    'ghcr.io/${{ github.repository_owner }}/investment-api-fake',
  );
  const job = Object.values(workflow.jobs).find((j) => j.steps.includes(build!));
  expect(job?.permissions?.packages).toBe('write');
});

it('labels the image with its real source, version and revision', () => {
  const [build] = using('docker/build-push-action');
  expect(build?.with?.labels).toBe('${{ steps.meta.outputs.labels }}');
  const args = build?.with?.['build-args'] ?? '';
  expect(args).toContain('REVISION=${{ github.sha }}');
  expect(args).toContain('SOURCE=${{ github.server_url }}/${{ github.repository }}');
  expect(args).toMatch(/VERSION=\$\{\{ steps\.meta\.outputs\.version \}\}/);
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  for (const label of ['source="${SOURCE}"', 'version="${VERSION}"', 'revision="${REVISION}"']) {
    expect(dockerfile).toContain(`org.opencontainers.image.${label}`);
  }
});

it('publishes the package to npm with provenance, after the tests, from the tagged version', () => {
  const publish = steps.find((s) => s.run?.includes('npm publish'));
  expect(publish?.run).toMatch(/npm publish --provenance\b/);
  expect(publish?.env?.NODE_AUTH_TOKEN).toBe('${{ secrets.NPM_TOKEN }}');
  const job = Object.values(workflow.jobs).find((j) => j.steps.includes(publish!))!;
  expect(job.permissions?.['id-token']).toBe('write');
  const runs = job.steps.map((s) => s.run);
  expect(runs.indexOf('npm test')).toBeGreaterThan(-1);
  expect(runs.indexOf('npm test')).toBeLessThan(runs.indexOf(publish!.run));
  expect(steps.some((s) => s.run?.includes('GITHUB_REF_NAME#v') && s.run.includes('package.json'))).toBe(true);
});

it("names the repository in package.json, which npm's provenance check requires", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string } };
  const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const source = /ARG SOURCE=(\S+)/.exec(dockerfile)?.[1];
  expect(pkg.repository.url).toBe(`git+${source}.git`);
});

it("moves the action's major tag (uses: …@v0) to the release once the image and the package are published", () => {
  const job = workflow.jobs.action!;
  expect(job.needs?.sort()).toEqual(['image', 'npm']);
  expect(job.permissions?.contents).toBe('write');
  const run = job.steps.map((s) => s.run ?? '').join('\n');
  expect(run).toContain('major="${GITHUB_REF_NAME%%.*}"');
  expect(run).toContain('git push --force origin "refs/tags/$major"');
});
