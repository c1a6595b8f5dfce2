import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OPERATION_STEPS, REQUEST_STEPS } from '../../src/http/pipeline.js';

// ARCHITECTURE.md's table of the pipeline is the declared list, in its order: a step added, moved or renamed in
// src/http/pipeline.ts and not in the table (or the reverse) fails here.
const page = readFileSync(new URL('../../ARCHITECTURE.md', import.meta.url), 'utf8');

function tableNames(): string[] {
  const section = page.slice(page.indexOf('## The pipeline, top to bottom'));
  const block = /```\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => /^[a-z]/.test(line))
    .map((line) => line.split(/\s{2,}/)[0]!);
}

describe("ARCHITECTURE.md's pipeline", () => {
  it('names the declared steps, in their order, then the error writer', () => {
    expect(tableNames()).toEqual([
      ...REQUEST_STEPS.map((step) => step.name),
      ...OPERATION_STEPS.map((step) => step.name),
      'errors',
    ]);
  });
});
