/** Whether something already listens on a loopback port: the fake would not start there, or another would answer. */
import { connect } from 'node:net';

export function ensurePortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`Port ${port} of 127.0.0.1 is in use already: choose another with the input port.`));
    });
    socket.once('error', () => resolve());
  });
}
