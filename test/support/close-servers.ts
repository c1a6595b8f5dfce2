import { afterAll } from 'vitest';
import { closeListeningServers } from './harness.js';

// A setup file runs before each test file, also when files share their worker: the servers of a file stop with it.
afterAll(closeListeningServers);
