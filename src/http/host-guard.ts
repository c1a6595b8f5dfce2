import { isIPv4, isIPv6 } from 'node:net';
import type { RequestHandler } from 'express';
import { DomainError } from '../api/errors.js';

/**
 * Which `Host` values the fake answers, as Vite's and webpack-dev-server's `allowedHosts`: a web page can only
 * reach a fake on a developer's machine through a name its attacker controls (DNS rebinding), so only names no
 * attacker can point at us are accepted by default.
 */
export interface HostPolicy {
  /** `ALLOWED_HOSTS` holds `*` or `all`: every Host is accepted. */
  readonly any: boolean;
  readonly exact: ReadonlySet<string>;
  /** `.example.com` (or `*.example.com`): the domain itself and every name under it. */
  readonly domains: readonly string[];
}

export type HostVerdict = 'allowed' | 'not_allowed' | 'malformed';

const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

const normalize = (name: string): string => name.trim().toLowerCase().replace(/\.$/, '');

/** The policy of an instance: `ALLOWED_HOSTS` entries plus the hosts of `BASE_URL` and `DOCS_URL`. */
export function hostPolicy(
  allowedHosts: readonly string[] = [],
  configuredUrls: readonly (string | undefined)[] = [],
): HostPolicy {
  const exact = new Set<string>();
  const domains: string[] = [];
  let any = false;
  for (const entry of allowedHosts.map(normalize).filter(Boolean)) {
    if (entry === '*' || entry === 'all') any = true;
    else if (entry.startsWith('*.')) domains.push(entry.slice(2));
    else if (entry.startsWith('.')) domains.push(entry.slice(1));
    else exact.add(entry);
  }
  for (const url of configuredUrls) if (url) exact.add(normalize(new URL(url).hostname));
  return { any, exact, domains };
}

/** The host name of a `Host` header (`name[:port]` or `[v6]:port`), lower case; undefined when it is not one. */
export function hostNameOf(header: string): string | undefined {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+))(?::([0-9]{1,5}))?$/.exec(header);
  if (!match) return undefined;
  if (match[1] !== undefined) return isIPv6(match[1]) ? `[${match[1].toLowerCase()}]` : undefined;
  const name = normalize(match[2]!);
  if (isIPv4(name)) return name;
  return name.split('.').every((label) => LABEL.test(label)) ? name : undefined;
}

/** Localhost names, IP literals, single-label names (docker service names), then the configured ones. */
export function checkHost(header: string | undefined, policy: HostPolicy): HostVerdict {
  // HTTP/1.0 clients may send none; no browser does, so no page can rebind through its absence.
  if (header === undefined) return 'allowed';
  const name = hostNameOf(header);
  if (name === undefined) return 'malformed';
  if (policy.any) return 'allowed';
  if (name === 'localhost' || name.endsWith('.localhost')) return 'allowed';
  if (name.startsWith('[') || isIPv4(name)) return 'allowed';
  if (!name.includes('.')) return 'allowed';
  if (policy.exact.has(name)) return 'allowed';
  return policy.domains.some((domain) => name === domain || name.endsWith(`.${domain}`)) ? 'allowed' : 'not_allowed';
}

const HEALTH = '/__control/health';

/** Refuses requests to a Host the fake does not answer to (the health check excepted: probes use any name). */
export function hostGuard(policy: HostPolicy): RequestHandler {
  // The verdict on the last Host seen: clients keep theirs, so its expressions run when it changes (one per instance).
  let last: { header: string | undefined; verdict: HostVerdict } | undefined;
  return (req, _res, next) => {
    if (req.path === HEALTH) return next();
    const header = req.headers.host;
    if (last?.header !== header || last === undefined) last = { header, verdict: checkHost(header, policy) };
    const { verdict } = last;
    if (verdict === 'allowed') return next();
    if (verdict === 'malformed') {
      throw new DomainError(
        400,
        'malformed_host',
        'The Host header is not a host name, an IP literal or either with a port.',
      );
    }
    throw new DomainError(
      403,
      'host_not_allowed',
      `This fake does not answer to the host "${hostNameOf(header!)!.slice(0, 253)}": localhost names, IP addresses and single-label names (docker service names) are accepted, plus the BASE_URL host; add others to ALLOWED_HOSTS (comma-separated, ".example.com" for a domain and its subdomains, "*" for any).`,
    );
  };
}
