import { afterAll, afterEach } from 'vitest';
import { closeListeningServers, takeAnswerMismatches } from './test-app.js';

// A setup file runs before each test file, also when files share their worker: the servers of a file stop with it.
afterAll(closeListeningServers);

// An answer of a test's app that breaks the document fails that test (the answer check runs once it is sent).
afterEach(() => {
  const mismatches = takeAnswerMismatches();
  if (mismatches.length > 0) {
    const list = mismatches
      .slice(0, 5)
      .map((m) => `  ${m.method} ${m.path} (${m.operationId}) ${m.status}: ${m.problems.slice(0, 5).join('; ')}`);
    throw new Error(`${mismatches.length} answer(s) do not match the OpenAPI document:\n${list.join('\n')}`);
  }
});
