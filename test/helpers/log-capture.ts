/** A pino logger of the app's options (redaction included) writing into memory: each line parsed, and raw. */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { buildLoggerOptions } from '../../src/http/observability.js';

export type LogLine = Record<string, unknown>;

export interface CapturedLog {
  readonly logger: Logger;
  readonly lines: LogLine[];
  readonly raw: string[];
}

export function captureLog(level = 'info'): CapturedLog {
  const lines: LogLine[] = [];
  const raw: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        raw.push(line);
        lines.push(JSON.parse(line) as LogLine);
      }
      callback();
    },
  });
  return { logger: pino(buildLoggerOptions(level), stream), lines, raw };
}
