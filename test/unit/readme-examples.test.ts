import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// A README code block marked `<!-- readme-example: <file> -->` is cut from that file, which the examples project
// runs: the README shows what runs, line for line (indentation aside).
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
const examples = [...readme.matchAll(/<!-- readme-example: (\S+) -->\n```ts\n([\s\S]*?)```/g)].map(([, file, code]) => ({ file: file!, code: code! }));
const lines = (text: string) => text.split('\n').map((line) => line.trim()).filter((line) => line !== '');

describe('README examples', () => {
  it('exist', () => {
    expect(examples.length).toBeGreaterThan(0);
  });

  it.each(examples)('the block from $file is in that file, line for line', ({ file, code }) => {
    const source = lines(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')).join('\n');
    for (const test of code.split(/\n(?=it\()/)) expect(source).toContain(lines(test).join('\n'));
  });
});
