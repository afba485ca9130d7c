/**
 * The report in three forms: text for a person at a terminal, Markdown for a pull-request comment,
 * JSON for machines (the SurfaceReport as it is). Texts of the spec are quoted, never interpreted:
 * a Markdown table cell is one line with `|`, HTML, links, images and @mentions neutralised, so a
 * spec author cannot break out of the table or forge content in a pull-request comment.
 */
import { CHANGE_KINDS, type Change } from './changes.js';
import type { AcknowledgedChange, SurfaceReport } from './diff.js';
import { showPath } from './schema-paths.js';
import type { TokenDelta } from './token-deltas.js';

export const REPORT_FORMATS = ['text', 'markdown', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export function formatReport(report: SurfaceReport, format: ReportFormat): string {
  if (format === 'json') return `${JSON.stringify(report, null, 2)}\n`;
  return format === 'markdown' ? formatMarkdown(report) : formatText(report);
}

/** `2 breaking (1 acknowledged), 3 compatible, 1 text` — or `no changes`. */
export function summarize(report: SurfaceReport): string {
  const { breaking, acknowledged, compatible, text } = report;
  if (breaking.length + acknowledged.length + compatible.length + text.length === 0) return 'no changes';
  const breaks = breaking.length + acknowledged.length;
  return `${breaks} breaking${acknowledged.length > 0 ? ` (${acknowledged.length} acknowledged)` : ''}, ${compatible.length} compatible, ${text.length} text`;
}

function signed(before: number | null, after: number | null): string {
  if (before === null || after === null) return '';
  const delta = after - before;
  return delta === 0 ? ' (±0)' : ` (${delta > 0 ? '+' : '−'}${Math.abs(delta)})`;
}

function cost(delta: { before: number | null; after: number | null }): string {
  return `${delta.before ?? '—'} → ${delta.after ?? '—'}${signed(delta.before, delta.after)}`;
}

function changedToolsets(report: SurfaceReport): TokenDelta[] {
  return report.tokens.toolsets.filter((toolset) => toolset.before !== toolset.after);
}

function label(item: Change): string {
  return CHANGE_KINDS[item.kind][1];
}

/** Long texts cut for a line: the JSON form has them whole. */
function clip(text: string, length = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

function textLine(item: Change | AcknowledgedChange): string {
  const where = item.path === '' ? '' : ` ${showPath(item.path)}`;
  const ack = 'acknowledgement' in item ? ` [x-mcp.breaking since ${item.acknowledgement.since}: ${clip(item.acknowledgement.reason, 120)}]` : '';
  const texts = item.before !== undefined ? `: "${clip(item.before, 80)}" → "${clip(item.after ?? '', 80)}"` : '';
  return `  ${item.tool}${where}: ${label(item)} — ${item.detail}${texts}${ack}`;
}

function formatText(report: SurfaceReport): string {
  const lines = [`tool surface, ${report.base} → ${report.head}: ${summarize(report)}; model-visible tokens ${cost(report.tokens.total)}`];
  const section = (title: string, items: ReadonlyArray<Change | AcknowledgedChange>): void => {
    if (items.length > 0) lines.push(`${title}:`, ...items.map(textLine));
  };
  section('breaking', report.breaking);
  section('breaking, acknowledged (x-mcp.breaking)', report.acknowledged);
  section('compatible', report.compatible);
  section('text', report.text);
  if (report.deprecated.length > 0) lines.push('deprecated names (x-mcp.aliases; answered, not listed):', ...report.deprecated.map((d) => `  ${d.alias} → ${d.tool} until ${d.until}`));
  if (report.tokens.tools.length > 0) lines.push('tokens per tool:', ...report.tokens.tools.map((t) => `  ${t.name}: ${cost(t)}`));
  const toolsets = changedToolsets(report);
  if (toolsets.length > 0) lines.push('tokens per toolset:', ...toolsets.map((t) => `  ${t.name}: ${cost(t)}`));
  if (report.unchecked.length > 0) lines.push(`not checked (no readable tools-review.gen.json on one side: missing, of another version or malformed): ${report.unchecked.join(', ')}`);
  return `${lines.join('\n')}\n`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * A Markdown table cell: one line; backslashes, `|` (a GFM table splits a row at every `|` not
 * escaped), HTML and `[`/`]` (no link, no image `![…]`) escaped; a zero-width space after `@`
 * (GitHub mentions a user even through a backslash-escaped or entity `@`).
 */
function cell(text: string): string {
  return oneLine(text).replace(/\\/g, '\\\\').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
    .replace(/[|[\]]/g, '\\$&').replace(/@/g, '@\u200b');
}

/**
 * A code span in a table cell: one line, `|` escaped. A code span shows backslashes as they are, but
 * the table still reads `\\` as an escaped backslash: those before a `|` are doubled so it stays escaped.
 */
function code(text: string): string {
  return text === '' ? '' : `\`${oneLine(text).replace(/`/g, "'").replace(/(\\*)\|/g, (_, slashes: string) => `${slashes}${slashes}\\|`)}\``;
}

function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string[] {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((row) => `| ${row.join(' | ')} |`), ''];
}

function changeRows(items: ReadonlyArray<Change | AcknowledgedChange>): string[][] {
  return items.map((item) => {
    const detail = item.before !== undefined ? `${cell(clip(item.before, 120))} → ${cell(clip(item.after ?? '', 120))}` : cell(item.detail);
    const row = [code(item.tool), cell(label(item)), code(item.path), detail];
    return 'acknowledgement' in item ? [...row, cell(item.acknowledgement.since), cell(item.acknowledgement.reason)] : row;
  });
}

function formatMarkdown(report: SurfaceReport): string {
  const lines = [`### Tool surface: ${summarize(report)}`, '', `${cell(report.base)} → ${cell(report.head)}. Model-visible tokens: ${cost(report.tokens.total)}.`, ''];
  const header = ['Tool', 'Change', 'Where', 'Detail'];
  const section = (title: string, items: ReadonlyArray<Change | AcknowledgedChange>, extra: readonly string[] = []): void => {
    if (items.length > 0) lines.push(`#### ${title}`, '', ...markdownTable([...header, ...extra], changeRows(items)));
  };
  section('Breaking', report.breaking);
  section('Breaking, acknowledged (`x-mcp.breaking`)', report.acknowledged, ['Since', 'Reason']);
  section('Compatible', report.compatible);
  section('Text', report.text);
  if (report.deprecated.length > 0) {
    lines.push('#### Deprecated names (`x-mcp.aliases`: answered by tools/call, not listed)', '', ...markdownTable(['Old name', 'Tool', 'Until'], report.deprecated.map((d) => [code(d.alias), code(d.tool), cell(d.until)])));
  }
  const toolsets = changedToolsets(report);
  if (report.tokens.tools.length + toolsets.length > 0) {
    const rows = [...report.tokens.tools.map((t) => [code(t.name), cost(t)]), ...toolsets.map((t) => [`toolset ${code(t.name)}`, cost(t)])];
    lines.push('#### Model-visible tokens', '', ...markdownTable(['Tool or toolset', 'Before → after'], rows));
  }
  if (report.unchecked.length > 0) lines.push(`Not checked (no readable \`tools-review.gen.json\` on one side: missing, of another version or malformed): ${report.unchecked.join(', ')}.`, '');
  return `${lines.join('\n').trimEnd()}\n`;
}
