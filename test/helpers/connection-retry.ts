/**
 * The client interop tests on a loaded machine. A request a client sends can meet a connection
 * that closes under it — a keep-alive socket the server closed after `HTTP_KEEP_ALIVE_TIMEOUT_MS`
 * of idleness while the machine was too busy for the client to notice, or a server process that
 * printed its banner but is not accepting yet — and fail with `ECONNRESET` (or `ECONNREFUSED`,
 * `EPIPE`) before any answer arrived. Such a request is sent again on a new connection.
 *
 * Only the connection is retried: a request that got an answer, whatever its status or body, is
 * returned as it is, and the test asserts on it once. No assertion and no test is retried.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Codes of a connection that failed before any answer (node's and undici's). */
const CONNECTION_ERROR_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
]);

/** Attempts per request, the first included. */
export const CONNECTION_ATTEMPTS = 4;

/**
 * The connection error code of `err`, or undefined when it is anything else. fetch rejects with
 * `TypeError: fetch failed` whose `cause` (or the cause's cause) carries the socket's code.
 */
export function connectionErrorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && CONNECTION_ERROR_CODES.has(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * `fetch` that sends a request again, on a new connection, when it failed with a connection error
 * before any answer (at most CONNECTION_ATTEMPTS in all, 100 ms more between each). An aborted
 * request, or any other error, is thrown at once. Bodies must be replayable (strings, as the MCP
 * SDKs and the tests send).
 */
export function connectionRetryingFetch(inner: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await inner(input, init);
      } catch (err) {
        const retry = attempt < CONNECTION_ATTEMPTS && connectionErrorCode(err) !== undefined && init?.signal?.aborted !== true;
        if (!retry) throw err;
        await delay(100 * attempt);
      }
    }
  };
}

/** The output of a client process that could not connect (the server reset or refused it). */
const CONNECTION_FAILURE_OUTPUT = /\b(?:ECONNRESET|ECONNREFUSED|EPIPE|UND_ERR_SOCKET|socket hang up|other side closed)\b/;

/** Whether a client process's run failed for its connection: a non-zero exit naming a connection error. */
export function failedToConnect(run: { code: number | null; stdout: string; stderr: string }): boolean {
  return run.code !== 0 && CONNECTION_FAILURE_OUTPUT.test(`${run.stderr}\n${run.stdout}`);
}

/**
 * Runs a client process again while it failed to connect (`failedToConnect`), at most
 * CONNECTION_ATTEMPTS times; any other outcome, success or failure, is returned for the test to
 * assert on.
 */
export async function runConnectingProcess<T extends { code: number | null; stdout: string; stderr: string }>(run: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    const result = await run();
    if (attempt >= CONNECTION_ATTEMPTS || !failedToConnect(result)) return result;
    await delay(100 * attempt);
  }
}

/**
 * Waits until `url` answers 200 (a started server's `/readyz`), retrying connection errors and
 * other answers every 100 ms, for at most `timeoutMs`.
 */
export async function waitUntilReady(url: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url);
      await res.arrayBuffer();
      if (res.status === 200) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      if (connectionErrorCode(err) === undefined) throw err;
      last = connectionErrorCode(err) as string;
    }
    await delay(100);
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms (last: ${last})`);
}
