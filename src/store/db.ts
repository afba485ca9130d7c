/** STUB: replaced shortly. */
import { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from './schema.js';
export async function openDatabase(_config: Config): Promise<{ db: Kysely<Database>; dialect: 'sqlite' | 'postgres'; close(): Promise<void> }> {
  throw new Error('not yet');
}
