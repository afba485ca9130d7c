/**
 * An invariant over the whole registry: no tool with `destructiveHint: true` runs without a
 * consumed confirmation. For every such tool: 2025 era and modern without elicitation →
 * `confirmation_required`; modern with form elicitation → `input_required` first; nothing is
 * written by any of those; an accepted resend that succeeds consumed exactly one nonce.
 * Nothing here names an operation: the arguments are derived from the spec (as the REST
 * coverage requests are) and the expected question from the operation's `x-kobana-confirm`.
 */
import { expect } from 'chai';
import type { Kysely } from 'kysely';
import { routes, tools } from '../../generated/registry.gen.js';
import { parseConfirmTemplate, type TemplateSegment } from '../../src/runtime/confirm-template.js';
import type { OperationRef, RouteDefinition, ToolDefinition } from '../../src/runtime/types.js';
import type { Database } from '../../src/store/schema.js';
import { DEMO } from '../../src/seed/ids.js';
import type { TestApp } from '../helpers/test-app.js';
import { startRestApp, type RestApp } from '../api/support/rest-app.js';
import { createTaker, deriveRequest, type Take } from '../api/support/coverage-requests.js';
import { ALL_WRITE, accept, callTool, expectInputRequired, expectToolError, type CallAnswer } from './support.js';

const MATRIZ = DEMO.workspaces.matriz;
const destructive = tools.filter((tool) => tool.annotations.destructiveHint);
const routeOf = (tool: ToolDefinition): RouteDefinition => {
  const route = routes.find((r) => r.operation.operationId === tool.operation.operationId);
  if (!route) throw new Error(`no route for ${tool.operation.operationId}`);
  return route;
};

/**
 * Arguments that pass validation, derived like the REST coverage requests (spec examples,
 * records made fresh in Matriz): path parameters and body fields are the tool's arguments.
 */
async function argsFor(take: Take, tool: ToolDefinition): Promise<Record<string, unknown>> {
  const request = await deriveRequest(routeOf(tool), take);
  return { workspace_id: MATRIZ, ...request.params, ...(request.body ?? {}) };
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const BRL = 'R\\$ [\\d.]+,\\d{2}';

/** One segment: text verbatim, a field quoted or in BRL, an argument labelled and quoted, a calculation in BRL or a date. */
function segmentPattern(segment: TemplateSegment): string {
  if ('text' in segment) return escape(segment.text);
  if ('argument' in segment) {
    const label = escape(segment.argument.replace(/_/g, ' '));
    return `(no ${label} given|${label} given: "[^"]{0,120}")`;
  }
  if ('calculation' in segment) return segment.kind === 'money' ? BRL : '\\d{4}-\\d{2}-\\d{2}';
  return segment.format === 'brl' ? BRL : '".+"';
}

/** The sentence a spec template (`x-kobana-confirm`) yields: its text verbatim, each field quoted or in BRL. */
function templatePattern(template: string): RegExp {
  const segments = parseConfirmTemplate(template);
  if (typeof segments === 'string') throw new Error(`template ${template} ${segments}`);
  return new RegExp(`^${segments.map(segmentPattern).join('')}$`);
}

/** The sentences of the named describers (src/api/confirmation) that a spec may pick with `{describer: …}`. */
const DESCRIBED: Readonly<Record<string, (op: OperationRef, args: Record<string, unknown>) => RegExp>> = {
  title: (op) => {
    const noun = op.path.split('/')[2]?.replace(/s$/, '') ?? '';
    const action = op.operationId.split('.').pop() ?? '';
    const verb = `${action.charAt(0).toUpperCase()}${action.slice(1)} ${noun} ".+" of ${BRL}`;
    if (action === 'cancel') return new RegExp(`^${verb}( (to|from) ".+")?( on account ".+")?, due \\d{4}-\\d{2}-\\d{2}\\?$`);
    if (action !== 'settle') return new RegExp(`^${verb}`);
    const payment = `, (paying|receiving) ${BRL} on \\d{4}-\\d{2}-\\d{2} \\(interest ${BRL}, discount ${BRL}\\)`;
    return new RegExp(noun === 'payable' ? `^${verb}( to ".+")? from account ".+"${payment}\\?$` : `^${verb}( from ".+")? into account ".+"${payment}\\?$`);
  },
  'title-batch': (op) => {
    const noun = op.path.split('/')[2]?.replace(/s$/, '') ?? '';
    const largest = `(largest: )?".+" ${BRL}( (to|from) ".+")?(, ".+" ${BRL}( (to|from) ".+")?){0,2}`;
    if (op.operationId.endsWith('.cancel_batch')) return new RegExp(`^Cancel \\d+ ${noun}s? totalling ${BRL} \\(${largest}\\)\\?$`);
    const where = ` ${noun === 'payable' ? 'from' : 'into'} (account ".+"|one account|\\d+ accounts) (on \\d{4}-\\d{2}-\\d{2}|between \\d{4}-\\d{2}-\\d{2} and \\d{4}-\\d{2}-\\d{2})`;
    return new RegExp(`^Settle \\d+ ${noun}s? totalling ${BRL}${where} \\(${largest}\\)\\?$`);
  },
  transaction: () => /^Delete (debit|credit) transaction.* of R\$ [\d.]+,\d{2}.* dated \d{4}-\d{2}-\d{2}\?$/,
  'attachment-link': () => /^Unlink attachment ".+" from (payable|receivable|transaction|a ).+\?$/,
  transfer: (_op, args) => new RegExp(`^Transfer ${escape(brl(String(args['amount'])))} from account ".+" to account ".+"\\?$`),
  'reconciliation-undo': () => /^Undo the reconciliation of statement lines? \d{4}-\d{2}-\d{2} R\$ [\d.]+,\d{2} (in|out) ".+", reopening (no title|(payable|receivable) ".+" \(R\$ [\d.]+,\d{2}\).*)\?$/,
  reconciliation: () => /^Reconcile \d+ statement lines? \(R\$ [\d.]+,\d{2} (in|out)\) with (payable|receivable|transaction) ".+" \(R\$ [\d.]+,\d{2}\)(, settling 1 open title)?\?$/,
};

/** What the confirmation question of `op` must read, from the spec's x-kobana-confirm (or its fallback). */
function expectedSentence(op: OperationRef, args: Record<string, unknown> = {}): RegExp {
  const confirmation = op.confirmation;
  if (!confirmation) throw new Error(`${op.operationId} is destructive without a confirmation`);
  if ('template' in confirmation) return templatePattern(confirmation.template);
  const pattern = DESCRIBED[confirmation.describer];
  if (!pattern) throw new Error(`no expected sentence for describer ${confirmation.describer}`);
  return pattern(op, args);
}

/** "5000.00" → "R$ 5.000,00". */
function brl(amount: string): string {
  const [units = '0', cents = '00'] = Number(amount).toFixed(2).split('.');
  return `R$ ${units.replace(/\B(?=(\d{3})+(?!\d))/g, '.')},${cents}`;
}

const VERSIONED = ['accounts', 'categories', 'cost_centers', 'people', 'taxes', 'titles', 'transactions', 'transfers', 'attachments'] as const;
const UNVERSIONED = ['attachment_links', 'activity', 'allocations', 'confirmation_nonces'] as const;

/** Row counts and version sums of every finance table: any write changes it (activity is appended on each). */
async function snapshot(db: Kysely<Database>): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const table of [...VERSIONED, ...UNVERSIONED]) {
    const rows = await db.selectFrom(table as 'titles').select((VERSIONED as readonly string[]).includes(table) ? ['id', 'version'] : ['workspace_id'])
      .where('workspace_id', 'in', [DEMO.workspaces.matriz, DEMO.workspaces.filial]).execute();
    const versions = rows.reduce((sum, row) => sum + Number((row as { version?: number }).version ?? 0), 0);
    out[table] = `${rows.length}/${versions}`;
  }
  return out;
}

function readCode(answer: CallAnswer): string {
  const result = answer.body.result ?? {};
  if (result['isError'] !== true) return 'ok';
  return (JSON.parse((result['content'] as { text: string }[])[0]?.text ?? '{}') as { error: { code: string } }).error.code;
}

describe('every tool with destructiveHint: true', function () {
  this.timeout(60_000);
  let api: RestApp;
  let app: TestApp;
  let take: Take;
  let token: string;

  before(async function () {
    api = await startRestApp();
    app = api.app;
    take = await createTaker(api, MATRIZ);
    token = await app.mintToken({ person: DEMO.emails.ana, scope: ALL_WRITE });
  });
  after(async function () {
    await api?.close();
  });

  it('are exactly the operations the registry classifies destructive, each with a confirmation sentence', function () {
    expect(destructive.length).to.be.greaterThanOrEqual(17);
    for (const tool of tools) {
      const { operationId, destructive: isDestructive, movesMoney, confirmation } = tool.operation;
      expect(tool.annotations.destructiveHint, `${operationId}: the hint is the classification`).to.equal(isDestructive);
      expect(confirmation !== null, `${operationId}: a confirmation sentence exactly when destructive`).to.equal(isDestructive);
      if (movesMoney) expect(isDestructive, `${operationId} moves money`).to.equal(true);
      if (isDestructive) expect(expectedSentence(tool.operation, { amount: '1' }), operationId).to.be.instanceOf(RegExp);
    }
  });

  for (const tool of destructive) {
    describe(tool.name, function () {
      it('answers confirmation_required in the 2025 era and without elicitation, then asks with form elicitation; nothing written', async function () {
        const args = await argsFor(take, tool);
        const before = await snapshot(app.services.db);
        expectToolError(await callTool(app.url, token, tool.name, args, { capabilities: null }), 'confirmation_required');
        expectToolError(await callTool(app.url, token, tool.name, args, { capabilities: {} }), 'confirmation_required');
        const { message } = expectInputRequired(await callTool(app.url, token, tool.name, args));
        expect(message).to.match(expectedSentence(tool.operation, args));
        expect(await snapshot(app.services.db)).to.deep.equal(before);
      });

      it('runs only on an accepted resend, consuming exactly one nonce, or refuses and writes nothing', async function () {
        const args = await argsFor(take, tool);
        const { requestState } = expectInputRequired(await callTool(app.url, token, tool.name, args));
        const before = await snapshot(app.services.db);
        const code = readCode(await callTool(app.url, token, tool.name, args, { requestState, inputResponses: accept() }));
        const after = await snapshot(app.services.db);
        const [nonces] = (before['confirmation_nonces'] ?? '0').split('/');
        if (code === 'ok') {
          expect(after['confirmation_nonces']).to.equal(`${Number(nonces) + 1}/0`);
          expectToolError(await callTool(app.url, token, tool.name, args, { requestState, inputResponses: accept() }), 'confirmation_replayed');
        } else {
          // A business refusal (e.g. a record still in use): rolled back with the nonce.
          expect(['CONFLICT', 'UNPROCESSABLE_ENTITY'], code).to.include(code);
          expect(after).to.deep.equal(before);
        }
      });
    });
  }
});
