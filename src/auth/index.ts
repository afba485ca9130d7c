/** STUB */
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/schema.js';
import type { Authenticator, Audience, Identity } from './types.js';
import type { Caller, Channel, TokenType } from '../api/context.js';

export interface MintTokenOptions { person: string; scope?: string; type?: TokenType; aud?: Audience; ttlSeconds?: number }
export interface AuthLimits { assertAuthAllowed(address: string): Promise<void>; recordAuthFailure(address: string): Promise<void> }
export interface AuthModule {
  authenticator: Authenticator;
  wellKnownRouter: Router;
  bearer(audience: Audience, limits: AuthLimits): Koa.Middleware;
  loadCaller(identity: Identity, channel: Channel): Promise<Caller>;
  mintToken?(opts: MintTokenOptions): Promise<string>;
}
export async function createAuth(_config: Config, _db: Kysely<Database>, _logger: Logger, _metrics: unknown): Promise<AuthModule> {
  throw new Error('not yet');
}
