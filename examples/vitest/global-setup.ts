// One fake for the whole test run, started before any test file (vitest globalSetup). Test files reach it by URL,
// exactly as they would reach a container in CI: swap startServer() for FAKE_URL=http://fake:8080 there.
import type { TestProject } from 'vitest/node';
import { startServer } from 'investment-api-fake';

declare module 'vitest' {
  export interface ProvidedContext {
    fakeUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const fake = process.env.FAKE_URL ? undefined : await startServer({ seed: 1 });
  project.provide('fakeUrl', process.env.FAKE_URL ?? fake!.url);
  return async () => {
    await fake?.stop();
  };
}
