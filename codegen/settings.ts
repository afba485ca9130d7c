/**
 * The document's own settings for the generator: the root extension `x-kobana-codegen`
 * (docs/generator.md#document-settings). Without it a document is generated in its own shape: tool
 * names are the snake_case of its operationIds, no operation runs inside a workspace, an operation
 * needs the permission it declares (`x-kobana-permission`) or none, and none of Kobana's contract
 * rules apply. openapi/v1.yaml turns each of them on.
 */
import { buildPointer, CodegenError } from './errors.js';

type Obj = Record<string, unknown>;

/** Kobana's contract rules a document may hold itself to (each named in `checks`). */
const CONTRACT_CHECKS = ['argument-texts', 'safety-metadata', 'confirmations'] as const;
export type ContractCheck = (typeof CONTRACT_CHECKS)[number];

export interface CodegenSettings {
  /** Put before every derived tool name (`finance_` → `finance_payables_settle`); '' by default. */
  readonly toolPrefix: string;
  /** Operations run inside a workspace (a `workspace_id` argument) unless `x-kobana-workspace: false`. */
  readonly workspaces: boolean;
  /** Every operation must declare `x-kobana-permission` and `x-kobana-touches`. */
  readonly permissionsRequired: boolean;
  readonly checks: ReadonlySet<ContractCheck>;
}

const SETTINGS_EXTENSION = 'x-kobana-codegen';
const KEYS = ['toolPrefix', 'workspaces', 'permissions', 'checks'];
const PERMISSION_MODES = ['required', 'optional'];
/** A prefix a snake_case slug can follow in a valid tool name, leaving room for the slug. */
const TOOL_PREFIX = /^[a-z][a-z0-9_]{0,31}$/;

const NEUTRAL_SETTINGS: CodegenSettings = { toolPrefix: '', workspaces: false, permissionsRequired: false, checks: new Set() };

/** Reads and checks `x-kobana-codegen` of the document root; a bad value names `file#/x-kobana-codegen/<key>`. */
export function readSettings(file: string, document: Obj): CodegenSettings {
  const raw = document[SETTINGS_EXTENSION];
  if (raw === undefined) return NEUTRAL_SETTINGS;
  const fail = (pointer: string, detail: string): never => { throw new CodegenError('INVALID_EXTENSION', file, pointer, detail); };
  const at = (...keys: Array<string | number>) => buildPointer(SETTINGS_EXTENSION, ...keys.map(String));
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    return fail(at(), `${SETTINGS_EXTENSION} must be an object {${KEYS.join(', ')}} (each optional)`);
  }
  const settings = raw as Obj;
  const unknown = Object.keys(settings).find((key) => !KEYS.includes(key));
  if (unknown !== undefined) fail(at(unknown), `${SETTINGS_EXTENSION} has no setting ${unknown} (settings: ${KEYS.join(', ')})`);
  const { toolPrefix = '', workspaces = false, permissions = 'optional', checks = [] } = settings;
  if (typeof toolPrefix !== 'string' || (toolPrefix !== '' && !TOOL_PREFIX.test(toolPrefix))) {
    fail(at('toolPrefix'), `${SETTINGS_EXTENSION}.toolPrefix must match ${TOOL_PREFIX.source} (a tool name starts with it)`);
  }
  if (typeof workspaces !== 'boolean') fail(at('workspaces'), `${SETTINGS_EXTENSION}.workspaces must be true or false`);
  if (typeof permissions !== 'string' || !PERMISSION_MODES.includes(permissions)) {
    fail(at('permissions'), `${SETTINGS_EXTENSION}.permissions must be ${PERMISSION_MODES.join(' or ')}`);
  }
  if (!Array.isArray(checks)) return fail(at('checks'), `${SETTINGS_EXTENSION}.checks must be a list of ${CONTRACT_CHECKS.join(', ')}`);
  checks.forEach((check: unknown, index) => {
    if (!CONTRACT_CHECKS.includes(check as ContractCheck)) fail(at('checks', index), `${SETTINGS_EXTENSION}.checks: ${JSON.stringify(check)} is not one of ${CONTRACT_CHECKS.join(', ')}`);
    if (checks.indexOf(check) !== index) fail(at('checks', index), `${SETTINGS_EXTENSION}.checks names ${String(check)} twice`);
  });
  return {
    toolPrefix: toolPrefix as string,
    workspaces: workspaces as boolean,
    permissionsRequired: permissions === 'required',
    checks: new Set(checks as ContractCheck[]),
  };
}
