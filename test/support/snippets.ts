// How a code block of the README or the docs runs, read from its `<!-- snippet: … -->` marker (the kinds are listed
// in test/support/doc-pages.ts). The unit test holds every block to having one; test/package/snippets.test.ts runs
// each as it says.
import type { DocBlock } from './doc-pages.js';

type Kind = 'test' | 'module' | 'shell' | 'serve' | 'config' | 'run by' | 'excerpt' | 'not run' | 'output';

export interface HowItRuns {
  kind: Kind;
  /** Why an excerpt or a block that is not run is so; what a module needs to run. */
  reason?: string;
  /** The test file that runs it as written. */
  runBy?: string;
  /** A shell session run against the fakes the block above it starts. */
  afterAbove?: boolean;
  /** A shell session run after the one of this `readme-test` name, in the same shell. */
  after?: string;
  /** What a configuration is for (`mcp`). */
  tool?: string;
}

const CONFIG_TOOLS = ['mcp'];
const languagesOf: Partial<Record<Kind, readonly string[]>> = {
  test: ['ts'],
  module: ['ts'],
  shell: ['sh'],
  serve: ['sh'],
  config: ['json'],
};

/** The block's marker read; throws, saying what is wrong, when it has none or one that does not fit. */
export function howItRuns(block: Pick<DocBlock, 'language' | 'snippet'>): HowItRuns {
  const how = parse(block);
  const languages = languagesOf[how.kind];
  if (languages && !languages.includes(block.language))
    throw new Error(`a ${block.language || 'plain'} block cannot run as ${how.kind}`);
  if ((how.kind === 'excerpt' || how.kind === 'not run') && (how.reason ?? '').length < 12)
    throw new Error(`${how.kind} needs its reason`);
  return how;
}

function parse({ language, snippet }: Pick<DocBlock, 'language' | 'snippet'>): HowItRuns {
  if (snippet === undefined) {
    if (language === 'text') return { kind: 'output' };
    throw new Error(
      `no <!-- snippet: … --> marker saying how it runs (a ${language || 'plain'} block; output is a \`\`\`text block)`,
    );
  }
  const reasoned = /^(excerpt|not run):\s*(.+)$/.exec(snippet);
  if (reasoned) return { kind: reasoned[1] as Kind, reason: reasoned[2]! };
  const runBy = /^(module, )?run by (\S+)$/.exec(snippet);
  if (runBy) return { kind: runBy[1] ? 'module' : 'run by', runBy: runBy[2]! };
  const module = /^module(?:, type-checked here; (.+))?$/.exec(snippet);
  if (module) return { kind: 'module', ...(module[1] !== undefined && { reason: module[1] }) };
  const config = /^config (\S+)$/.exec(snippet);
  if (config && CONFIG_TOOLS.includes(config[1]!)) return { kind: 'config', tool: config[1]! };
  if (snippet === 'shell, after the block above') return { kind: 'shell', afterAbove: true };
  const after = /^shell, after (\S+)$/.exec(snippet);
  if (after) return { kind: 'shell', after: after[1]! };
  if (['test', 'shell', 'serve', 'output'].includes(snippet)) return { kind: snippet as Kind };
  throw new Error(`"snippet: ${snippet}" is no kind of test/support/doc-pages.ts`);
}

/** The packages a TypeScript block imports, but this one, vitest and Node's own modules. */
export function packagesImported(code: string): string[] {
  const specifiers = [...code.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?'([^'.][^']*)'/gm)].map((match) => match[1]!);
  const packages = specifiers.map((spec) =>
    spec
      .split('/')
      .slice(0, spec.startsWith('@') ? 2 : 1)
      .join('/'),
  );
  // the Testcontainers module's peer, installed beside the package
  if (specifiers.includes('investment-api-fake/testcontainers')) packages.push('testcontainers');
  return [...new Set(packages)].filter(
    (name) => !name.startsWith('node:') && name !== 'vitest' && name !== 'investment-api-fake',
  );
}
