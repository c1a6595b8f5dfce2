import { pino, type DestinationStream, type Logger } from 'pino';
import type { FakeOptions, LogFormat } from './config.js';

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

const paint = (on: boolean, code: number, text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);
const statusColour = (status: number) => (status >= 500 ? 31 : status >= 400 ? 33 : status >= 300 ? 36 : 32);

/**
 * One pino JSON record as a line for people: `12:03:04.567 GET /v1/orders 200 3 ms sandbox-client 5f1c…`, or
 * `12:03:04.567 warn <message>` for anything but a request.
 */
export function prettyLine(record: Record<string, unknown>, colour: boolean): string {
  const time = new Date(typeof record.time === 'number' ? record.time : Date.now()).toISOString().slice(11, 23);
  if (record.msg === 'request' && typeof record.status === 'number') {
    const duration =
      typeof record.durationMs === 'number' ? `${record.durationMs.toFixed(record.durationMs < 10 ? 1 : 0)} ms` : '';
    const client = typeof record.clientId === 'string' ? record.clientId : '-';
    return [
      paint(colour, 2, time),
      String(record.method).padEnd(6),
      String(record.path),
      paint(colour, statusColour(record.status), String(record.status)),
      duration,
      paint(colour, 2, `${client} ${String(record.reqId ?? '')}`),
    ].join(' ');
  }
  const { time: _t, level, msg, service: _s, pid: _p, hostname: _h, ...rest } = record;
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
  return `${paint(colour, 2, time)} ${LEVEL_NAMES[level as number] ?? String(level)} ${String(msg ?? '')}${extra}`;
}

/** A pino destination that writes each record through `prettyLine`. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean }): DestinationStream {
  const colour = Boolean(out.isTTY) && !process.env.NO_COLOR;
  return {
    write(line: string) {
      let record: Record<string, unknown>;
      try {
        record = JSON.parse(line) as Record<string, unknown>;
      } catch {
        out.write(line);
        return;
      }
      out.write(`${prettyLine(record, colour)}\n`);
    },
  };
}

/** The CLI's logger: pino's JSON lines for machines, or pretty lines for a terminal. */
export function cliLogger(level: NonNullable<FakeOptions['logLevel']>, format: LogFormat): Logger {
  const options = { level, base: { service: 'investment-api-fake' } };
  return format === 'pretty' ? pino(options, prettyStream(process.stdout)) : pino(options);
}
