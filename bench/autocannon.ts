/** autocannon for the bench scripts, typed with the part of its API they use (the package ships no types). */
import { createRequire } from 'node:module';

export interface AutocannonOptions {
  url: string; method?: string; headers?: Record<string, string>; body?: string; connections?: number; duration?: number;
}
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  throughput: { total: number };
  errors: number; timeouts: number; non2xx: number;
}
type Autocannon = (options: AutocannonOptions, done: (error: Error | null, result: AutocannonResult) => void) => unknown;
export const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
