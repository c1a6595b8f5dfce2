// Imported first by the library's entry (src/index.ts), so that it evaluates before the other modules: the process's
// RSA key pair (a large part of a start: bench/key-pair.mjs) is made on libuv's thread pool while Express, the
// validator and the rest load, instead of on the first startServer() or createApp() after them. An error surfaces
// there, where the key is needed (rsaKeyPair() makes it synchronously then).
import { prepareRsaKeyPair } from './key-pair.js';

prepareRsaKeyPair().catch(() => undefined);
