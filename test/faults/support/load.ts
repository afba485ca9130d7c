/**
 * The load of the fault suite: a few workers calling the replicas in turn, two reads for every
 * write, until stopped. Writes are `POST /v1/transactions`, each with its own `Idempotency-Key`,
 * which is also the transaction's description so that the rows can be counted per key. A write
 * answered 503 (or not answered) is retried with the same key on the next replica until it is
 * acknowledged (201); any other answer ends it.
 *
 * Every answer is kept as a sample (start time, duration, status). Anything a replica must never
 * answer under these faults is a violation: a status other than 200/201/503, a 503 without
 * `Retry-After` or without the `SERVICE_UNAVAILABLE` envelope, a connection error (the process
 * is gone), a write still unacknowledged when the load stops.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';

export interface LoadTarget {
  readonly name: string;
  readonly url: string;
}

export interface LoadOptions {
  readonly targets: readonly LoadTarget[];
  readonly token: string;
  readonly workspaceId: string;
  readonly accountId: string;
  readonly workers: number;
  /** Pause before retrying a write answered 503 (shorter than its Retry-After, to keep the suite short). */
  readonly retryDelayMs: number;
}

export interface Sample {
  /** `Date.now()` when the request was sent. */
  readonly start: number;
  readonly ms: number;
  readonly kind: 'read' | 'write';
  readonly target: string;
  /** HTTP status, or 0 when the connection failed. */
  readonly status: number;
}

export interface Load {
  readonly samples: readonly Sample[];
  /** Idempotency-Key → id of the transaction acknowledged for it. */
  readonly acknowledged: ReadonlyMap<string, string>;
  /** Keys answered 503 at least once before their acknowledgement. */
  readonly retriedAfter503: ReadonlySet<string>;
  /** Acknowledgements that replayed a stored answer (`Idempotency-Replayed: true`). */
  readonly replayed: ReadonlySet<string>;
  readonly violations: readonly string[];
  /** Stops the workers; writes being retried get until `timeoutMs` to be acknowledged. */
  stop(timeoutMs: number): Promise<void>;
}

/** A description prefix that only this suite's writes carry. */
export const WRITE_PREFIX = 'fault-load-';

interface Answer {
  readonly status: number;
  readonly retryAfter: string | null;
  readonly replayed: boolean;
  // Read field by field.
  readonly body: any;
}

export function startLoad(options: LoadOptions): Load {
  const samples: Sample[] = [];
  const acknowledged = new Map<string, string>();
  const retriedAfter503 = new Set<string>();
  const replayed = new Set<string>();
  const violations: string[] = [];
  let stopping = false;
  let deadline = Number.POSITIVE_INFINITY;

  async function call(target: LoadTarget, kind: Sample['kind'], method: string, route: string, body?: unknown, key?: string): Promise<Answer> {
    const start = Date.now();
    const began = performance.now();
    let answer: Answer;
    try {
      const response = await fetch(`${target.url}${route}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          'x-workspace-id': options.workspaceId,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...(key === undefined ? {} : { 'idempotency-key': key }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(15_000),
      });
      const text = await response.text();
      answer = {
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        replayed: response.headers.get('idempotency-replayed') === 'true',
        body: text === '' ? undefined : JSON.parse(text),
      };
    } catch (err) {
      violations.push(`${method} ${route} on ${target.name}: no answer (${err instanceof Error ? err.message : 'error'})`);
      answer = { status: 0, retryAfter: null, replayed: false, body: undefined };
    }
    samples.push({ start, ms: performance.now() - began, kind, target: target.name, status: answer.status });
    if (answer.status === 503 && (answer.retryAfter === null || answer.body?.error?.code !== 'SERVICE_UNAVAILABLE')) {
      violations.push(`${method} ${route} on ${target.name}: 503 without Retry-After or SERVICE_UNAVAILABLE`);
    } else if (answer.status !== 0 && ![200, 201, 503].includes(answer.status)) {
      violations.push(`${method} ${route} on ${target.name}: ${answer.status} ${JSON.stringify(answer.body?.error?.code ?? null)}`);
    }
    return answer;
  }

  async function write(turn: number): Promise<void> {
    const key = `${WRITE_PREFIX}${randomUUID()}`;
    const body = { financial_account_id: options.accountId, type: 'credit', amount: '1.00', occurred_at: '2026-03-10', description: key };
    for (let attempt = 0; ; attempt += 1) {
      const target = options.targets[(turn + attempt) % options.targets.length] as LoadTarget;
      const answer = await call(target, 'write', 'POST', '/v1/transactions', body, key);
      if (answer.status === 201) {
        acknowledged.set(key, answer.body.id as string);
        if (answer.replayed) replayed.add(key);
        return;
      }
      // Retried only when the answer says so (503) or never came (0); anything else is a violation already.
      if (answer.status !== 503 && answer.status !== 0) return;
      if (answer.status === 503) retriedAfter503.add(key);
      if (Date.now() > deadline) {
        violations.push(`write ${key}: not acknowledged when the load stopped (last status ${answer.status})`);
        return;
      }
      await sleep(options.retryDelayMs);
    }
  }

  async function worker(first: number): Promise<void> {
    for (let turn = first; !stopping; turn += options.workers) {
      const target = options.targets[turn % options.targets.length] as LoadTarget;
      if (turn % 3 === 0) await write(turn);
      else if (turn % 3 === 1) await call(target, 'read', 'GET', '/v1/transactions?limit=5');
      else await call(target, 'read', 'GET', `/v1/accounts/${options.accountId}`);
    }
  }

  const workers = Array.from({ length: options.workers }, (_, index) => worker(index));
  return {
    samples,
    acknowledged,
    retriedAfter503,
    replayed,
    violations,
    async stop(timeoutMs) {
      stopping = true;
      deadline = Date.now() + timeoutMs;
      await Promise.all(workers);
    },
  };
}

/** The median duration (ms) of the successful reads sent in [from, to). */
export function medianReadMs(samples: readonly Sample[], from: number, to: number): { median: number; count: number } {
  const durations = samples
    .filter((s) => s.kind === 'read' && s.status === 200 && s.start >= from && s.start < to)
    .map((s) => s.ms)
    .sort((a, b) => a - b);
  return { median: durations[Math.floor(durations.length / 2)] ?? Number.NaN, count: durations.length };
}
