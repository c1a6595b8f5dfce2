import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

/** One TCP connection to a fake, to send requests on it by hand and see whether the server keeps or closes it. */
export interface RawConnection {
  /** Sends a GET and resolves with the status line and headers of its answer, read to the end of its body. */
  get(path: string): Promise<{ status: number; headers: Record<string, string> }>;
  /** Sends raw bytes and resolves with everything the server sends until it closes the connection. */
  sendUntilClosed(bytes: string): Promise<string>;
  readonly closedByServer: boolean;
  readonly socket: Socket;
  destroy(): void;
}

export async function rawConnection(port: number): Promise<RawConnection> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  let closedByServer = false;
  let waiting: (() => void) | undefined;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    received += chunk;
    waiting?.();
  });
  socket.on('end', () => {
    closedByServer = true;
    waiting?.();
  });
  socket.on('error', () => {
    closedByServer = true;
    waiting?.();
  });
  const next = () => new Promise<void>((resolve) => (waiting = resolve));

  async function answer(): Promise<{ status: number; headers: Record<string, string> }> {
    for (;;) {
      const end = received.indexOf('\r\n\r\n');
      if (end !== -1) {
        const [statusLine, ...lines] = received.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (received.length >= end + 4 + length) {
          received = received.slice(end + 4 + length);
          return { status: Number(statusLine!.split(' ')[1]), headers };
        }
      }
      if (closedByServer)
        throw new Error(
          `the server closed the connection${received ? ` after sending ${JSON.stringify(received)}` : ''}`,
        );
      await next();
    }
  }

  return {
    get(path) {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
      return answer();
    },
    async sendUntilClosed(bytes) {
      socket.write(bytes);
      while (!closedByServer) await next();
      return received;
    },
    get closedByServer() {
      return closedByServer;
    },
    socket,
    destroy: () => socket.destroy(),
  };
}
