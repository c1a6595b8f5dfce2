// The action's inputs as main reads them (action/src/inputs.ts), from the runner's INPUT_* variables: the fake's own
// checks, every refusal naming its input and none showing its value. The bundled action run as the runner runs it,
// with these cases end to end: test/e2e/github-action.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InputsRefused, readInputs, secretsOf } from '../../action/src/inputs.js';
import { ROOT } from '../support/cli.js';

const variable = (name: string) => `INPUT_${name.toUpperCase()}`;
const set: string[] = [];
afterEach(() => {
  for (const name of set.splice(0)) delete process.env[name];
});

/** The inputs as the runner passes them: action.yml's defaults, then these. */
function withInputs(inputs: Record<string, string>): void {
  const all = {
    image: '',
    package: '',
    seed: '',
    clients: '',
    'control-token': '',
    port: '8080',
    'state-dir': '',
    upstream: '',
    'fail-on-findings': 'false',
    ...inputs,
  };
  for (const [name, value] of Object.entries(all)) {
    set.push(variable(name));
    process.env[variable(name)] = value;
  }
}

const refusal = (inputs: Record<string, string>): string => {
  withInputs(inputs);
  try {
    readInputs();
  } catch (error) {
    expect(error).toBeInstanceOf(InputsRefused);
    return (error as Error).message;
  }
  throw new Error('not refused');
};

describe("the action's inputs", () => {
  it('takes good values as the fake takes them', () => {
    withInputs({
      seed: '7',
      clients: '[\n  {"client_id": "acme", "client_secret": "s3cret"}\n]\n',
      'control-token': 'ops-token',
      port: '9000',
      upstream: 'https://sandbox.example.com/',
      'fail-on-findings': 'true',
    });
    const inputs = readInputs();
    expect(inputs).toMatchObject({
      source: { kind: 'container' },
      seed: 7,
      controlToken: 'ops-token',
      port: 9000,
      upstream: 'https://sandbox.example.com',
      failOnFindings: true,
    });
    expect(secretsOf(inputs)).toEqual(['ops-token', 's3cret']);
  });

  it.each([
    [
      { clients: JSON.stringify([{ client_id: 'x\n::warning::y', client_secret: 's' }]) },
      'Input clients: the client_id of client 1 must be 1 to 128',
    ],
    [
      { clients: JSON.stringify([{ client_id: 'a'.repeat(129), client_secret: 's' }]) },
      'Input clients: the client_id of client 1 must be 1 to 128',
    ],
    [
      { clients: JSON.stringify([{ client_id: 'acme', client_secret: '' }]) },
      'Input clients: every client needs a non-empty',
    ],
    [
      { clients: JSON.stringify([{ client_id: 'acme', client_secret: 's', settings: { x: 'a\u2029b' } }]) },
      'Input clients must not hold a line break',
    ],
    [{ clients: 'not json at all' }, 'Input clients must be JSON'],
    [{ clients: 'x'.repeat(131_073) }, 'Input clients must hold at most 131072 characters'],
    [{ 'control-token': 'ops\n' }, 'Input control-token must not hold a line break'],
    [{ 'control-token': 'ops token' }, 'Input control-token must be 1 to 4096 visible ASCII characters'],
    [{ upstream: 'https://u:p@sandbox.example.com' }, 'Input upstream must not carry credentials'],
    [{ upstream: 'https://sandbox.example.com/?x=1' }, 'Input upstream must be a base URL without a query or fragment'],
    [{ port: '0' }, 'Input port must be an integer from 1 to 65535'],
    [{ port: '65536' }, 'Input port must be an integer from 1 to 65535'],
    [{ port: '0x1F90' }, 'Input port must be an integer from 1 to 65535'],
    [{ seed: '1.5' }, 'Input seed must be an integer ≥ 0'],
    [{ image: '--privileged' }, 'Input image must be an image reference'],
    [{ image: 'img#x' }, 'Input image must be an image reference'],
    [{ package: '--registry=https://evil.example' }, 'Input package must be a package spec or a path, not an option'],
    [{ package: 'investment-api-fake@0.1.0\n::warning::x' }, 'Input package must not hold a line break'],
    [{ 'state-dir': 'a\rb' }, 'Input state-dir must not hold a line break'],
    [{ 'state-dir': 'x'.repeat(4097) }, 'Input state-dir must hold at most 4096 characters'],
    [{ 'fail-on-findings': 'yes' }, 'Input fail-on-findings must be true or false'],
  ])('refuses %j, naming the input and not its value', (inputs, message) => {
    const text = refusal(inputs);
    expect(text).toContain(message);
    expect(text).toMatch(/ Nothing was started\.$/);
    expect(text).not.toMatch(/[\r\n\u2028\u2029]/);
    for (const value of Object.values(inputs)) expect(text).not.toContain(value);
  });
});

describe("the action's sources", () => {
  it('write workflow commands through @actions/core only: no "::" or "##[" string, no stdout or stderr of their own', () => {
    const dir = join(ROOT, 'action/src');
    const files = readdirSync(dir);
    expect(files).toContain('main.ts');
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      expect(text, file).not.toMatch(/['"`]::|##\[/);
      expect(text, file).not.toMatch(/process\.(stdout|stderr)|console\./);
    }
  });
});
