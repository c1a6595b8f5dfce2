import { existsSync, readFileSync } from 'node:fs';
import tls from 'node:tls';

/** Where Debian, Alpine, Fedora/RHEL and macOS keep the trusted certificates (OpenSSL's `SSL_CERT_FILE` first). */
const SYSTEM_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

const pemsIn = (file: string | undefined): string[] => {
  if (!file || !existsSync(file)) return [];
  try {
    return readFileSync(file, 'utf8').match(PEM) ?? [];
  } catch {
    return [];
  }
};

type WithCaCertificates = typeof tls & {
  getCACertificates?: (type: 'default' | 'system' | 'bundled' | 'extra') => string[];
};

/**
 * The certificates an upstream may be signed by: Node's own (Mozilla's) roots, `NODE_EXTRA_CA_CERTS` and the
 * system's trust store, as a partner's curl would trust them (a company proxy's CA is usually in the system store).
 * Node ≥ 22.15 lists each of them itself; on older versions the files are read here.
 */
export function trustedCertificates(env: NodeJS.ProcessEnv = process.env): string[] {
  const { getCACertificates } = tls as WithCaCertificates;
  const own = getCACertificates
    ? [...getCACertificates('default'), ...getCACertificates('system')]
    : [...tls.rootCertificates];
  const extra = pemsIn(env.NODE_EXTRA_CA_CERTS);
  const system = pemsIn(env.SSL_CERT_FILE ?? SYSTEM_BUNDLES.find((file) => existsSync(file)));
  return [...new Set([...own, ...extra, ...system])];
}
