/**
 * payables.create_from_code (issue 30 item 1; docs/domain.md#bills-from-their-codes): a payable
 * recorded from the code printed on the bill — a boleto's linha digitável or barcode
 * (src/api/codes/boleto.ts) or a Pix "copia e cola" BR Code (src/api/codes/pix.ts). What the code
 * carries (amount, due date) is taken from it; what it does not carry the caller gives, else
 * VALIDATION_ERROR naming the field; an amount or due date that contradicts the code is refused,
 * never silently overridden. The write is payables.create's (createTitle: the same validation,
 * classification rules, apportionment, audit columns and activity entry), plus the code.
 *
 * One payment is recorded once per workspace: a code that identifies one (a boleto's barcode; a
 * Pix code with a txid) already on a payable that is not cancelled → CONFLICT naming it (checked
 * in this transaction; the partial unique index of migration 0011 is the backstop under a race).
 * Nothing is paid: settling is payables.settle.
 */
import { defineOperations } from '../define-operations.js';
import type { OperationContext } from '../context.js';
import { ApiError, validationError, type ValidationIssue } from '../errors.js';
import { formatCents, parseMoneyInput } from '../money.js';
import { isUniqueViolation, readBody, requireWorkspace } from '../records.js';
import { sanitizeDisplayText } from '../display-text.js';
import { decodeBoleto } from '../codes/boleto.js';
import { parsePixCode } from '../codes/pix.js';
import { createTitle, PAYABLES, type TitlePaymentCode } from '../rules/titles.js';
import { readTitleJson } from '../rules/title-records.js';
import { readToday } from '../rules/title-status.js';

const OPERATION = 'payables.create_from_code';
const BOLETO_TEXT = /^[0-9 .-]+$/;
const MAX_DESCRIPTION = 500;

/** What a code says, in the terms of a payable. */
interface ReadCode {
  readonly paymentCode: TitlePaymentCode;
  readonly amountCents: number | null;
  readonly dueDate: string | null;
  /** The description when the caller gives none (`{due}` stands for the due date). */
  readonly describe: (dueDate: string) => string;
}

/** Decodes `code` (path `code`); the boleto's due-date factor is read in the cycle of `today` (the workspace's, from ctx.now()). */
function readCode(code: string, today: string): ReadCode {
  const text = code.trim();
  if (BOLETO_TEXT.test(text)) {
    const boleto = decodeBoleto(text, 'code', today);
    const details = { barcode: boleto.barcode, digitable_line: boleto.digitable_line, payload: null, pix_key: null, txid: null, location: null };
    if (boleto.kind === 'bank') {
      return {
        paymentCode: { kind: 'boleto', code: boleto.barcode, key: boleto.barcode, details },
        amountCents: boleto.amount_cents, dueDate: boleto.due_date, describe: (due) => `Boleto ${boleto.bank_code} due ${due}`,
      };
    }
    return {
      paymentCode: { kind: 'utility', code: boleto.barcode, key: boleto.barcode, details },
      // An arrecadação barcode carries no due date (FEBRABAN layout): the caller gives it.
      amountCents: boleto.amount_cents, dueDate: null, describe: (due) => `Utility bill (${boleto.segment_name.replaceAll('_', ' ')}) due ${due}`,
    };
  }
  if (!text.startsWith('00')) {
    throw validationError([{ path: 'code', message: "must be a boleto's linha digitável or barcode (digits) or a Pix copia e cola code (starting 000201)" }]);
  }
  const pix = parsePixCode(text, 'code');
  return {
    paymentCode: {
      kind: pix.kind === 'static' ? 'pix_static' : 'pix_dynamic', code: pix.payload,
      // `***` (null) names no payment: the same static code may be paid many times.
      key: pix.txid === null ? null : `pix:${pix.txid}`,
      details: {
        barcode: null, digitable_line: null, payload: pix.payload,
        pix_key: pix.kind === 'static' ? pix.key : null, txid: pix.txid, location: pix.kind === 'dynamic' ? pix.location : null,
      },
    },
    // A Pix code has no due date; a dynamic one serves its amount from the location, never fetched here.
    amountCents: pix.amount_cents, dueDate: null, describe: () => `Pix to ${pix.merchant_name}`,
  };
}

/** The body of payables.create: the code's amount and due date where it carries them, the caller's where it does not. */
function resolveFields(read: ReadCode, body: Record<string, unknown>): { amount: string; dueDate: string } {
  const issues: ValidationIssue[] = [];
  let amount = '';
  if (read.amountCents !== null) {
    if (body['amount'] !== undefined && parseMoneyInput(body['amount'], 'amount') !== read.amountCents) {
      issues.push({ path: 'amount', message: `must be the amount the code carries (${formatCents(read.amountCents)}) or left out` });
    }
    amount = formatCents(read.amountCents);
  } else if (body['amount'] === undefined) {
    issues.push({ path: 'amount', message: 'is required: the code carries no amount' });
  } else {
    amount = formatCents(parseMoneyInput(body['amount'], 'amount'));
  }
  let dueDate = '';
  if (read.dueDate !== null) {
    if (body['due_date'] !== undefined && body['due_date'] !== read.dueDate) {
      issues.push({ path: 'due_date', message: `must be the due date the code carries (${read.dueDate}) or left out` });
    }
    dueDate = read.dueDate;
  } else if (body['due_date'] === undefined) {
    issues.push({ path: 'due_date', message: 'is required: the code carries no due date' });
  } else {
    dueDate = String(body['due_date']);
  }
  if (issues.length > 0) throw validationError(issues);
  return { amount, dueDate };
}

function defaultDescription(read: ReadCode, dueDate: string): string {
  return sanitizeDisplayText(read.describe(dueDate)).replace(/\s+/g, ' ').trim().slice(0, MAX_DESCRIPTION);
}

const ALREADY = 'This payment is already recorded on a payable of the workspace that is not cancelled; nothing was written. Read that payable, or cancel it first.';

/** The payable (not cancelled) that already records this payment, if any. */
async function findRecorded(ctx: OperationContext, key: string): Promise<string | undefined> {
  const row = await ctx.db.selectFrom('titles').select('id')
    .where('workspace_id', '=', requireWorkspace(ctx)).where('payment_code_key', '=', key).where('status', '<>', 'cancelled')
    .limit(1).executeTakeFirst();
  return row?.id;
}

export const handlers = defineOperations({
  [OPERATION]: async (ctx, input) => {
    const body = readBody(input.body);
    const read = readCode(String(body['code']), await readToday(ctx));
    const { amount, dueDate } = resolveFields(read, body);
    const key = read.paymentCode.key;
    if (key !== null) {
      const existing = await findRecorded(ctx, key);
      if (existing) throw new ApiError('CONFLICT', ALREADY, { payable_id: existing });
    }
    const { code: _code, ...fields } = body;
    const create = { ...fields, amount, due_date: dueDate, description: body['description'] ?? defaultDescription(read, dueDate) };
    let id: string;
    try {
      id = await createTitle(ctx, PAYABLES, create, { operation: OPERATION, paymentCode: read.paymentCode });
    } catch (err) {
      // A concurrent record of the same payment committed first: the unique index decided.
      if (isUniqueViolation(err)) throw new ApiError('CONFLICT', ALREADY, undefined, { cause: err });
      throw err;
    }
    return { outcome: 'created', body: await readTitleJson(ctx, PAYABLES, id) };
  },
});
