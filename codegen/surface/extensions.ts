/**
 * The two `x-mcp` keys of the tool-surface change report (docs/generator.md#the-tool-surface-change-report),
 * read and validated where the operation is planned; a bad shape is an INVALID_EXTENSION naming
 * `file#pointer`:
 * - `x-mcp.breaking: {since, reason}` acknowledges the operation's breaking changes (the report lists
 *   them apart and `--fail-on breaking` passes);
 * - `x-mcp.aliases: [{name, until}]` keeps former names of the tool answered by `tools/call` until an
 *   ISO date (UTC).
 * Uniqueness of alias names across tools and their expiry are aliases.ts's job.
 */
import type { ToolAlias } from '../../src/runtime/types.js';
import { CodegenError } from '../errors.js';
import { isValidToolName, TOOL_NAME_PATTERN } from '../naming.js';
import { isPlainObject } from '../../src/runtime/values.js';

type Obj = Record<string, unknown>;

/** What `x-mcp.breaking` says: since when (a version or date, as the team writes it) and why. */
export interface BreakingAcknowledgement {
  readonly since: string;
  readonly reason: string;
}

const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;


function nonEmptyText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

/** `x-mcp.breaking`, or null when absent. */
export function readBreaking(file: string, pointer: string, raw: unknown): BreakingAcknowledgement | null {
  if (raw === undefined) return null;
  const at = `${pointer}/x-mcp/breaking`;
  if (!isPlainObject(raw) || !nonEmptyText(raw.since) || !nonEmptyText(raw.reason) || Object.keys(raw).some((key) => key !== 'since' && key !== 'reason')) {
    throw new CodegenError('INVALID_EXTENSION', file, at, 'x-mcp.breaking must be {since, reason}: two non-empty strings (since: the version or date of the break; reason: why callers must change)');
  }
  return { since: raw.since.trim(), reason: raw.reason.trim() };
}

/** `x-mcp.aliases`, in declaration order; [] when absent. */
export function readAliases(file: string, pointer: string, raw: unknown): ToolAlias[] {
  if (raw === undefined) return [];
  const at = `${pointer}/x-mcp/aliases`;
  if (!Array.isArray(raw)) throw new CodegenError('INVALID_EXTENSION', file, at, 'x-mcp.aliases must be a list of {name, until}');
  return raw.map((entry: unknown, index) => {
    const where = `${at}/${index}`;
    if (!isPlainObject(entry) || Object.keys(entry).some((key) => key !== 'name' && key !== 'until')) {
      throw new CodegenError('INVALID_EXTENSION', file, where, 'an alias must be {name, until}');
    }
    if (typeof entry.name !== 'string' || !isValidToolName(entry.name)) {
      throw new CodegenError('INVALID_NAME', file, `${where}/name`, `an alias name must be a tool name matching ${TOOL_NAME_PATTERN.source}`);
    }
    if (typeof entry.until !== 'string' || !isIsoDate(entry.until)) {
      throw new CodegenError('INVALID_EXTENSION', file, `${where}/until`, 'until must be a calendar date written YYYY-MM-DD (the last day the old name is answered, UTC)');
    }
    return { name: entry.name, until: entry.until };
  });
}

/** `2027-02-30` is not a date: the round trip through Date must give the same text. */
function isIsoDate(text: string): boolean {
  if (!ISO_DATE.test(text)) return false;
  const date = new Date(`${text}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === text;
}
