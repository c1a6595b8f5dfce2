import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { jwkThumbprint, keyPairFromPem, pkcs8Pem } from '../../src/auth/key-file.js';

describe('kept signing keys', () => {
  it('the kid is the RFC 7638 thumbprint: the RFC’s own example key gives its example value', () => {
    const n =
      '0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw';
    const key = createPublicKey({ key: { kty: 'RSA', n, e: 'AQAB' }, format: 'jwk' });
    expect(jwkThumbprint(key)).toBe('NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs');
  });

  it('reads PKCS#8 and PKCS#1 PEM alike; refuses text that is no key, an EC key and a short RSA key, naming the source', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
    const pair = keyPairFromPem(pkcs1, 'test key');
    expect(pkcs8Pem(pair)).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(jwkThumbprint(keyPairFromPem(pkcs8Pem(pair), 'again').publicKey)).toBe(jwkThumbprint(pair.publicKey));
    expect(() => keyPairFromPem('hello', 'KEY "x.pem"')).toThrow(/^KEY "x.pem" is not a PEM private key/);
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    expect(() => keyPairFromPem(ec, 'KEY "ec.pem"')).toThrow(/ec key; tokens are signed RS256/);
    const short = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({
      type: 'pkcs8',
      format: 'pem',
    }) as string;
    expect(() => keyPairFromPem(short, 'KEY "short.pem"')).toThrow(/1024-bit RSA key; RS256 needs 2048 bits/);
  });
});
