/**
 * The one failure funnel of `/mcp` (src/mcp/failure.ts): which of its two shapes — a JSON-RPC
 * error or an HTTP error — each failure gets, and the id it names, decided by what the exchange
 * knew when the failure happened.
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { expect } from 'chai';
import Koa from 'koa';
import { pino } from 'pino';
import type { AppState } from '../../src/http/app-state.js';
import { HttpError } from '../../src/http/errors.js';
import { answerFailure, type Exchange } from '../../src/mcp/failure.js';
import { INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, JsonRpcError, SERVICE_UNAVAILABLE } from '../../src/mcp/json-rpc.js';

const log = pino({ level: 'silent' });

function context(): Koa.ParameterizedContext<AppState> {
  const req = new IncomingMessage(new Socket());
  return new Koa<AppState>().createContext(req, new ServerResponse(req));
}

function answer(error: unknown, exchange: Exchange): { status: number; body: { id: unknown; error: { code: number; message: string } }; headers: Record<string, unknown> } {
  const ctx = context();
  answerFailure(ctx, error, exchange, log);
  return { status: ctx.status, body: JSON.parse(String(ctx.body)), headers: ctx.response.headers };
}

/** What a database outage looks like to the store's classifier (a refused connection). */
function outage(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
}

describe('the /mcp failure funnel', function () {
  it('answers a JsonRpcError on its own status with the id once it is known', function () {
    const refused = new JsonRpcError(INVALID_PARAMS, 'Invalid params: requestState is not valid for this call');
    expect(answer(refused, { id: 7, method: 'tools/call' })).to.deep.include({ status: 200 });
    expect(answer(refused, { id: 7, method: 'tools/call' }).body).to.deep.include({ id: 7, error: { code: INVALID_PARAMS, message: refused.message } });
    expect(answer(new JsonRpcError(INVALID_REQUEST, 'Invalid Request', 400), { id: null, method: undefined })).to.deep.include({ status: 400 });
  });

  it('answers an unexpected failure inside a method in-band, as -32603 naming the request', function () {
    const { status, body } = answer(new Error('boom'), { id: 'a', method: 'tools/call' });
    expect(status).to.equal(200);
    expect(body).to.deep.include({ id: 'a', error: { code: INTERNAL_ERROR, message: 'Internal error' } });
  });

  it('answers an unexpected failure outside a method with HTTP 500 and id null', function () {
    const { status, body } = answer(new Error('boom'), { id: 3, method: undefined });
    expect(status).to.equal(500);
    expect(body).to.deep.include({ id: null, error: { code: INTERNAL_ERROR, message: 'Internal error' } });
  });

  it('answers a transport rejection with its status, headers and a -32600 body', function () {
    const { status, body, headers } = answer(new HttpError(429, 'Too many requests', { 'Retry-After': '7' }), { id: null, method: undefined });
    expect(status).to.equal(429);
    expect(headers['retry-after']).to.equal('7');
    expect(body).to.deep.include({ id: null, error: { code: INVALID_REQUEST, message: 'Too many requests' } });
  });

  it('answers a database outage with 503 + Retry-After, inside a method or before one', function () {
    const inside = answer(outage(), { id: 9, method: 'tools/call' });
    expect(inside.status).to.equal(503);
    expect(inside.headers['retry-after']).to.be.a('string');
    expect(inside.body.id).to.equal(9);
    expect(inside.body.error.code).to.equal(SERVICE_UNAVAILABLE);
    const before = answer(outage(), { id: null, method: undefined });
    expect(before.status).to.equal(503);
    expect(before.body.id).to.equal(null);
  });
});
