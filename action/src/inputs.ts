/**
 * The action's inputs (action.yml), read and checked before anything starts, each with the fake's own check of the
 * setting it becomes (src/settings-checks.ts: a client, an upstream, a port, a seed, a control token). A refusal
 * fails the step at once, naming the input and never showing its value: the job's log is read by whoever reads the
 * job, and a value with a line break would be a workflow command there.
 */
import { isAbsolute, resolve } from 'node:path';
import * as core from '@actions/core';
import { publishedImage } from '../../src/package-info.js';
import {
  clients as clientList,
  controlToken,
  holdsControlCharacter,
  port,
  SettingRefused,
  seed,
  upstreamUrl,
} from '../../src/settings-checks.js';

/** The published image of this version, as `action.yml`'s `image` default and the Testcontainers module name it. */
export const DEFAULT_IMAGE = publishedImage();
export const DEFAULT_PORT = 8080;

export interface ActionInputs {
  /** Where the fake comes from: the image (a container), or a package spec or path (a Node process). */
  source: { kind: 'container'; image: string } | { kind: 'package'; spec: string };
  seed?: number;
  /** The `CLIENTS` JSON as given (checked as the fake checks CLIENTS). */
  clients?: string;
  controlToken?: string;
  port: number;
  /** An absolute path on the runner. */
  stateDir?: string;
  upstream?: string;
  failOnFindings: boolean;
}

/** Inputs the action cannot take: every refusal, each naming its input. Nothing has been started. */
export class InputsRefused extends Error {
  override name = 'InputsRefused';
}

/** The most an input holds: `clients` what one environment variable can on Linux (128 KiB), any other 4 KiB. */
const MAX_LENGTH = { clients: 131_072, other: 4096 } as const;

/** An image reference as docker reads one (name, `:tag`, `@digest`): never an option (`-…`), never a `#`. */
const IMAGE = /^[A-Za-z0-9][A-Za-z0-9._/:@-]*$/;

/**
 * An input's value; `undefined` when empty (the runner passes `action.yml`'s defaults, tests may not). Trimmed, as
 * `core.getInput` does, but for the control token, taken as given. The runner names it `INPUT_FAIL-ON-FINDINGS`; a
 * runner's stand-in that writes `INPUT_FAIL_ON_FINDINGS` is heard too.
 */
function inputValue(name: string): string | undefined {
  const trim = name !== 'control-token';
  const value =
    core.getInput(name, { trimWhitespace: trim }) || process.env[`INPUT_${name.replace(/-/g, '_').toUpperCase()}`];
  return (trim ? value?.trim() : value) || undefined;
}

/** Every input read and checked; `InputsRefused` names each one that cannot be taken. */
export function readInputs(): ActionInputs {
  const refusals: string[] = [];
  /** The input's value after its check; a refusal is kept, and the input read as absent. */
  const read = <T>(name: string, check: (label: string, value: string) => T): T | undefined => {
    const value = inputValue(name);
    if (value === undefined) return undefined;
    const label = `Input ${name}`;
    try {
      if (value.length > (name === 'clients' ? MAX_LENGTH.clients : MAX_LENGTH.other))
        throw new SettingRefused(
          `${label} must hold at most ${name === 'clients' ? MAX_LENGTH.clients : MAX_LENGTH.other} characters`,
        );
      // the JSON of clients may be laid out on lines: the strings in it are checked below
      if (name !== 'clients' && holdsControlCharacter(value))
        throw new SettingRefused(`${label} must not hold a line break or another control character`);
      return check(label, value);
    } catch (error) {
      if (!(error instanceof SettingRefused)) throw error;
      refusals.push(error.message);
      return undefined;
    }
  };
  const spec = read('package', notAnOption);
  const image = read('image', imageReference);
  const inputs = {
    seed: read('seed', seed),
    clients: read('clients', clientsJson),
    controlToken: read('control-token', controlToken),
    port: read('port', (label, value) => port(label, value, 1)),
    stateDir: read('state-dir', (_label, value) => (isAbsolute(value) ? value : resolve(value))),
    upstream: read('upstream', upstreamUrl),
    failOnFindings: read('fail-on-findings', yamlBoolean),
  };
  if (refusals.length > 0) throw new InputsRefused(`${refusals.join(' ')} Nothing was started.`);
  return {
    source: spec !== undefined ? { kind: 'package', spec } : { kind: 'container', image: image ?? DEFAULT_IMAGE },
    ...(inputs.seed !== undefined && { seed: inputs.seed }),
    ...(inputs.clients !== undefined && { clients: inputs.clients }),
    ...(inputs.controlToken !== undefined && { controlToken: inputs.controlToken }),
    port: inputs.port ?? DEFAULT_PORT,
    ...(inputs.stateDir !== undefined && { stateDir: inputs.stateDir }),
    ...(inputs.upstream !== undefined && { upstream: inputs.upstream }),
    failOnFindings: inputs.failOnFindings ?? false,
  };
}

/** The secrets among the inputs, for `core.setSecret` before anything could print them: the token, every client's. */
export function secretsOf(inputs: ActionInputs): string[] {
  const secrets = inputs.controlToken !== undefined ? [inputs.controlToken] : [];
  if (inputs.clients !== undefined)
    secrets.push(...clientList('clients', inputs.clients).map((client) => client.client_secret));
  return secrets;
}

/** CLIENTS as the fake checks it, and no line break or control character in any of its strings. */
function clientsJson(label: string, value: string): string {
  const list = clientList(label, value);
  if (stringsOf(list).some(holdsControlCharacter))
    throw new SettingRefused(`${label} must not hold a line break or another control character in any of its strings`);
  return value;
}

/** Every string in a JSON value, names included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  return [];
}

function imageReference(label: string, value: string): string {
  if (!IMAGE.test(value))
    throw new SettingRefused(`${label} must be an image reference (name, :tag, @digest), such as ${DEFAULT_IMAGE}`);
  return value;
}

/** A package spec or path: handed to npx as a value, never read as one of its options. */
function notAnOption(label: string, value: string): string {
  if (value.startsWith('-')) throw new SettingRefused(`${label} must be a package spec or a path, not an option`);
  return value;
}

/** YAML 1.2's core booleans, as `core.getBooleanInput` takes them. */
function yamlBoolean(label: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new SettingRefused(`${label} must be true or false`);
}
