import { createPublicKey, generateKeyPair, generateKeyPairSync, type KeyObject } from 'node:crypto';

export interface RsaKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
}

let processKeyPair: RsaKeyPair | undefined;

/**
 * The one RSA key pair of the process, made on first use. Generating a 2048-bit key is a large part of a start, which
 * every instance a test suite starts would pay. Sharing it keeps instances independent: each has its own `kid`, signed
 * into every token's header, and refuses tokens with another.
 */
export function rsaKeyPair(): RsaKeyPair {
  if (!processKeyPair) {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    processKeyPair = { privateKey, publicKey: createPublicKey(privateKey) };
  }
  return processKeyPair;
}

let pending: Promise<void> | undefined;

/**
 * Starts making the key pair on libuv's thread pool, so a process can load its modules meanwhile (the CLI does, and
 * the library starts it as its first module evaluates: src/auth/key-pair-early.ts); every call waits for the same one.
 */
export function prepareRsaKeyPair(): Promise<void> {
  if (processKeyPair) return Promise.resolve();
  pending ??= new Promise((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (error, _publicKey, privateKey) => {
      if (error) return reject(error);
      processKeyPair ??= { privateKey, publicKey: createPublicKey(privateKey) };
      resolve();
    });
  });
  return pending;
}
