import { createHash, createHmac, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import type { RsaKeyPair } from './key-pair.js';

/**
 * The RFC 7638 thumbprint of an RSA public key: SHA-256 of its required JWK members in lexicographic order, as
 * base64url. A key gives the same `kid` in every process and after every restart, so replicas sharing one key
 * (SIGNING_KEY_FILE) or a restart keeping it (STATE_DIR) accept each other's tokens.
 */
export function jwkThumbprint(publicKey: KeyObject): string {
  const { e, n } = publicKey.export({ format: 'jwk' });
  return createHash('sha256')
    .update(JSON.stringify({ e, kty: 'RSA', n }))
    .digest('base64url');
}

/** An RSA private key (2048 bits or more) from PEM text, PKCS#8 or PKCS#1; `source` names it in every error. */
export function keyPairFromPem(pem: string, source: string): RsaKeyPair {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch (error) {
    throw new Error(`${source} is not a PEM private key: ${(error as Error).message}`);
  }
  if (privateKey.asymmetricKeyType !== 'rsa') {
    throw new Error(
      `${source} holds a ${privateKey.asymmetricKeyType ?? 'non-RSA'} key; tokens are signed RS256, so it must be an RSA key.`,
    );
  }
  const bits = privateKey.asymmetricKeyDetails?.modulusLength ?? 0;
  if (bits < 2048) throw new Error(`${source} holds a ${bits}-bit RSA key; RS256 needs 2048 bits or more.`);
  return { privateKey, publicKey: createPublicKey(privateKey) };
}

/**
 * A secret derived from a kept key (HMAC of its PKCS#8 bytes under a label): document links signed before a restart,
 * or by another replica holding the same key, stay valid, and no second secret needs keeping.
 */
export const derivedSecret = (pair: RsaKeyPair, label: string): Buffer =>
  createHmac('sha256', pair.privateKey.export({ type: 'pkcs8', format: 'der' }))
    .update(label)
    .digest();

/** PKCS#8 PEM, as STATE_DIR keeps the key pair (the public key is derived from it). */
export const pkcs8Pem = (pair: RsaKeyPair): string =>
  pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
