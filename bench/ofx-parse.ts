/**
 * OFX import cost (issue 25, M3): how long a statement file holds the event loop and how much
 * memory it takes, for a file of many small tags and for a legal statement of N transactions.
 * `--mode inline` parses on this thread (as before issue 25: `parseOfxStatement`);
 * `--mode thread` pre-scans and parses as statements.import does now (`prescanOfx` +
 * `parseOfxOffThread`). Prints one JSON line: wall time, the longest gap between two beats of a
 * 5 ms heartbeat on this thread (how long the event loop was held), and peak RSS sampled by the
 * same beat (the worker's heap counts in RSS).
 *
 *   node --import tsx bench/ofx-parse.ts --shape tags --size 6000000 --mode thread
 *   node --import tsx bench/ofx-parse.ts --shape lines --size 10000 --mode inline
 */
import { parseArgs } from 'node:util';
import { parseOfxStatement, prescanOfx, STATEMENT_FILE_BOUNDS } from '../src/api/rules/statements/ofx.js';
import { parseOfxOffThread } from '../src/api/rules/statements/ofx-thread.js';
import { createDeadline } from '../src/runtime/deadline.js';
import { systemClock } from '../src/runtime/clock.js';

const HEAD = 'OFXHEADER:100\nDATA:OFXSGML\n\n<OFX><BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>';
const TAIL = '</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>\n';

function build(shape: string, size: number): Uint8Array {
  if (shape === 'tags') return new TextEncoder().encode(HEAD + '<a>1'.repeat(Math.floor((size - HEAD.length - TAIL.length) / 4)) + TAIL);
  let body = '';
  for (let i = 0; i < size; i += 1) body += `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20260305<TRNAMT>-${(i % 900) + 1}.50<FITID>F${i}<NAME>Fornecedor ${i}<MEMO>Pagamento ${i}</STMTTRN>`;
  return new TextEncoder().encode(HEAD + body + TAIL);
}

const { values } = parseArgs({ options: { shape: { type: 'string', default: 'tags' }, size: { type: 'string', default: '6000000' }, mode: { type: 'string', default: 'thread' } } });
const bytes = build(values.shape, Number(values.size));
let peakRss = process.memoryUsage().rss;
let lastBeat = performance.now();
let maxGap = 0;
const beat = setInterval(() => {
  const now = performance.now();
  maxGap = Math.max(maxGap, now - lastBeat);
  lastBeat = now;
  peakRss = Math.max(peakRss, process.memoryUsage().rss);
}, 5);
await new Promise((resolve) => setTimeout(resolve, 50));
const started = performance.now();
let outcome: string;
try {
  const lines = values.mode === 'inline'
    ? parseOfxStatement(bytes, Number.MAX_SAFE_INTEGER)
    : (prescanOfx(bytes, STATEMENT_FILE_BOUNDS.maxTags), await parseOfxOffThread(bytes, STATEMENT_FILE_BOUNDS.maxLines, createDeadline(systemClock, 60_000)));
  outcome = `${lines.length} lines`;
} catch (err) {
  outcome = `refused: ${(err as Error).message}`;
}
const wallMs = Math.round(performance.now() - started);
await new Promise((resolve) => setTimeout(resolve, 20));
clearInterval(beat);
console.log(JSON.stringify({
  shape: values.shape, size: Number(values.size), bytes: bytes.length, mode: values.mode, outcome, wallMs,
  maxLoopBlockMs: Math.round(maxGap), peakRssMb: Math.round(peakRss / 1e6),
}));
