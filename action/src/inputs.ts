/**
 * The action's inputs (action.yml), read and checked once: a bad value fails the step at once, naming the input,
 * rather than a fake that will not start.
 */
import { isAbsolute, resolve } from 'node:path';
import * as core from '@actions/core';
import { publishedImage } from '../../src/package-info.js';

/** The published image of this version, as `action.yml`'s `image` default and the Testcontainers module name it. */
export const DEFAULT_IMAGE = publishedImage();
export const DEFAULT_PORT = 8080;

export interface ActionInputs {
  /** Where the fake comes from: the image (a container), or a package spec or path (a Node process). */
  source: { kind: 'container'; image: string } | { kind: 'package'; spec: string };
  seed?: number;
  /** The `CLIENTS` JSON as given (checked to be an array of clients). */
  clients?: string;
  controlToken?: string;
  port: number;
  /** An absolute path on the runner. */
  stateDir?: string;
  upstream?: string;
  failOnFindings: boolean;
}

/**
 * An input's value, trimmed; `undefined` when empty (the runner passes `action.yml`'s defaults, tests may not). The
 * runner names it `INPUT_FAIL-ON-FINDINGS`; a runner's stand-in that writes `INPUT_FAIL_ON_FINDINGS` is heard too.
 */
const optional = (name: string): string | undefined =>
  core.getInput(name) || process.env[`INPUT_${name.replace(/-/g, '_').toUpperCase()}`]?.trim() || undefined;

export function readInputs(): ActionInputs {
  const spec = optional('package');
  const seed = optional('seed');
  const clients = optional('clients');
  const stateDir = optional('state-dir');
  const upstream = optional('upstream');
  const controlToken =
    core.getInput('control-token', { trimWhitespace: false }) || process.env.INPUT_CONTROL_TOKEN || undefined;
  return {
    source:
      spec !== undefined ? { kind: 'package', spec } : { kind: 'container', image: optional('image') ?? DEFAULT_IMAGE },
    ...(seed !== undefined && { seed: checkedInteger('seed', seed, 0) }),
    ...(clients !== undefined && { clients: checkedClients(clients) }),
    ...(controlToken !== undefined && { controlToken }),
    port: checkedInteger('port', optional('port') ?? String(DEFAULT_PORT), 1, 65_535),
    ...(stateDir !== undefined && { stateDir: isAbsolute(stateDir) ? stateDir : resolve(stateDir) }),
    ...(upstream !== undefined && { upstream: checkedUrl(upstream) }),
    failOnFindings: checkedBoolean('fail-on-findings', optional('fail-on-findings') ?? 'false'),
  };
}

function checkedInteger(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max)
    throw new Error(`Input ${name} must be an integer from ${min} to ${max}, got "${value}".`);
  return number;
}

/** YAML 1.2's core booleans, as `core.getBooleanInput` takes them. */
function checkedBoolean(name: string, value: string): boolean {
  if (['true', 'True', 'TRUE'].includes(value)) return true;
  if (['false', 'False', 'FALSE'].includes(value)) return false;
  throw new Error(`Input ${name} must be true or false, got "${value}".`);
}

function checkedClients(value: string): string {
  let clients: unknown;
  try {
    clients = JSON.parse(value);
  } catch (error) {
    throw new Error(`Input clients must be a JSON array of clients: ${(error as Error).message}`);
  }
  const valid =
    Array.isArray(clients) &&
    clients.length > 0 &&
    clients.every(
      (c: unknown) =>
        typeof c === 'object' &&
        c !== null &&
        typeof (c as Record<string, unknown>).client_id === 'string' &&
        typeof (c as Record<string, unknown>).client_secret === 'string',
    );
  if (!valid)
    throw new Error(
      'Input clients must be a JSON array of at least one client, each with a client_id and a client_secret (docs/configuration.md).',
    );
  return value;
}

function checkedUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // said below
  }
  throw new Error(`Input upstream must be an http or https base URL, got "${value}".`);
}
