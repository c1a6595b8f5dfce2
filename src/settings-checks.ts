/**
 * The checks of a fake's settings, one definition each, shared by the CLI (config.ts: flags and environment) and the
 * GitHub Action (action/src/inputs.ts), which checks its inputs with them before it starts anything. Pure, importing
 * nothing at run time, so that the action's bundle takes them alone. A refusal names the setting and never holds its value: the
 * CLI adds the value where it may be shown (`SettingRefused.withValue`); a CI log never gets it.
 */
import type { ClientCreate } from './domain/clients.js';

/** A bad setting: the CLI exits 2 on it. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A setting refused by its check. `mayShowValue`: false when the value may hold a secret (a token, credentials). */
export class SettingRefused extends ConfigError {
  constructor(
    private readonly refusal: string,
    readonly mayShowValue = true,
  ) {
    super(`${refusal}.`);
  }

  /** The message with the value it refused, as a string literal (a line break in it shows as `\n`). */
  withValue(value: string): string {
    return this.mayShowValue ? `${this.refusal}, got ${JSON.stringify(value)}.` : this.message;
  }
}

/** An OAuth client's id, wherever a client is made (CLIENTS, `POST /__control/clients`, the action): URL-safe, bounded. */
export const CLIENT_ID = { pattern: '^[A-Za-z0-9._~-]+$', maxLength: 128 } as const;
const CLIENT_ID_RULE = `1 to ${CLIENT_ID.maxLength} characters of A-Z, a-z, 0-9 and . _ ~ -`;
export const isClientId = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= CLIENT_ID.maxLength && new RegExp(CLIENT_ID.pattern).test(value);

/** A line break of any kind (CR, LF, NEL, U+2028, U+2029) or another control character. */
export const holdsControlCharacter = (value: string): boolean =>
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value);

/** A decimal integer: digits only (no sign, space, exponent or `0x`), within [min, max]. */
export function integer(name: string, value: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(value);
  if (!/^\d{1,16}$/.test(value) || n < min || n > max)
    throw new SettingRefused(
      max === Number.MAX_SAFE_INTEGER
        ? `${name} must be an integer ≥ ${min}`
        : `${name} must be an integer from ${min} to ${max}`,
    );
  return n;
}

/** A TCP port; `min` 1 where 0 (any free port) cannot be told to whoever connects (the action). */
export const port = (name: string, value: string, min: 0 | 1 = 0): number => integer(name, value, min, 65_535);

/** The seed of the generated world. */
export const seed = (name: string, value: string): number => integer(name, value, 0);

export function absoluteUrl(name: string, value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new SettingRefused(`${name} must be an absolute URL`);
  }
}

/** An upstream's base URL: http(s) only, no credentials in it (they would be stored and shown), no query or fragment. */
export function upstreamUrl(name: string, value: string): string {
  // a value with an `@` may hold credentials, however malformed: never shown
  const mayShow = !value.includes('@');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new SettingRefused(`${name} must be an absolute http(s) URL`, mayShow);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new SettingRefused(`${name} must be an http:// or https:// URL`, mayShow);
  if (parsed.username !== '' || parsed.password !== '')
    throw new SettingRefused(
      `${name} must not carry credentials (user:password@): the fake would store and show them`,
      false,
    );
  if (parsed.search !== '' || parsed.hash !== '')
    throw new SettingRefused(`${name} must be a base URL without a query or fragment`, mayShow);
  return parsed.toString().replace(/\/$/, '');
}

/** What `Authorization: Bearer <token>` carries as one token: visible ASCII, no space, bounded. */
export function controlToken(name: string, value: string): string {
  if (!/^[\x21-\x7e]{1,4096}$/.test(value))
    throw new SettingRefused(
      `${name} must be 1 to 4096 visible ASCII characters, with no space or line break (it is sent as "Authorization: Bearer <token>")`,
      false,
    );
  return value;
}

export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!allowed.includes(value as T)) throw new SettingRefused(`${name} must be one of ${allowed.join(', ')}`);
  return value as T;
}

export function boolean(name: string, value: string): boolean {
  if (/^(1|true|yes)$/i.test(value)) return true;
  if (/^(0|false|no)$/i.test(value)) return false;
  throw new SettingRefused(`${name} must be true or false`);
}

/** A switch: `on`/`off` and the words `boolean` takes. */
export function onOff(name: string, value: string): boolean {
  if (/^on$/i.test(value)) return true;
  if (/^off$/i.test(value)) return false;
  try {
    return boolean(name, value);
  } catch {
    throw new SettingRefused(`${name} must be on or off`);
  }
}

/**
 * CLIENTS: JSON, a list of clients (or one) that each have a valid id and a secret (to be named, and greeted with);
 * the rest of each client (method, scopes, settings) is the document's to check, when the instance is made
 * (src/context.ts). Its text holds secrets: never shown.
 */
export function clients(name: string, value: string): ClientCreate[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new SettingRefused(
      `${name} must be JSON: [{"client_id": "...", "client_secret": "...", "scopes"?: [...], "settings"?: {...}}]`,
      false,
    );
  }
  const list: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  if (list.length === 0) throw new SettingRefused(`${name} must name at least one client`, false);
  list.forEach((c, i) => {
    const client = (typeof c === 'object' && c !== null ? c : {}) as Record<string, unknown>;
    if (
      typeof client.client_id !== 'string' ||
      typeof client.client_secret !== 'string' ||
      !client.client_id ||
      !client.client_secret
    )
      throw new SettingRefused(`${name}: every client needs a non-empty "client_id" and "client_secret"`, false);
    if (!isClientId(client.client_id))
      throw new SettingRefused(`${name}: the client_id of client ${i + 1} must be ${CLIENT_ID_RULE}`, false);
  });
  return list as ClientCreate[];
}
