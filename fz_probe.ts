import { operations, tools } from './generated/registry.gen.js';
import { buildOperationCases } from './test/fuzz/support/cases.js';
import { encodeRest, encodeMcp } from './test/fuzz/support/encode.js';
import { seededRandom } from './test/fuzz/support/run.js';
const vocab = { ids: ['11111111-1111-4111-8111-111111111111'], byResource: new Map([['accounts', ['a1111111-1111-4111-8111-111111111111']], ['people', ['b1111111-1111-4111-8111-111111111111']]]) };
const random = seededRandom(1);
let total = 0;
for (const op of operations) {
  const tool = tools.find(t => t.operation.operationId === op.operation.operationId) ?? null;
  const cases = buildOperationCases(op, tool, vocab, { casesPerOperation: 200, bothSurfaces: false, random });
  const det = cases.filter(c => !c.label.includes(', ')).length;
  total += cases.length;
  console.log(op.operation.operationId, cases.length, 'det', det);
  if (['payables.create','payables.list','cash_flow.get','attachments.upload'].includes(op.operation.operationId)) {
    for (const c of cases.slice(0, 400)) {
      if (c.label.includes('largest') || c.label.includes('file') || c.label.includes('OFX')) { console.log('   ', c.surface, c.label); continue; }
      const w = c.surface === 'rest' ? encodeRest(op, c, 'T', 'W') : null;
      const m = c.surface === 'mcp' && tool ? encodeMcp(tool, c, 'W') : null;
      console.log('   ', c.surface, c.label, '=>', (w ? w.target + ' ' + (w.body?.toString().slice(0, 150) ?? '') : JSON.stringify(m?.args).slice(0, 200)).slice(0, 260));
    }
  }
}
console.log('total', total);
