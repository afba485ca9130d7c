/**
 * The kinds of change the report tells apart, each in its class (docs/generator.md#the-tool-surface-change-report):
 * **breaking** — a caller written against the base may now fail or do something else;
 * **compatible** — every call that worked still works; **text** — what a model reads changed.
 */
export type ChangeClass = 'breaking' | 'compatible' | 'text';

/** Kind → [class, how the report says it]. */
export const CHANGE_KINDS = {
  tool_removed: ['breaking', 'tool removed'],
  tool_renamed: ['breaking', 'tool renamed'],
  alias_retargeted: ['breaking', 'old name now points at another operation'],
  argument_removed: ['breaking', 'argument removed'],
  argument_renamed: ['breaking', 'argument renamed'],
  argument_required: ['breaking', 'argument newly required'],
  type_narrowed: ['breaking', 'type narrowed'],
  enum_value_removed: ['breaking', 'enum value removed'],
  bound_tightened: ['breaking', 'bound tightened'],
  output_field_removed: ['breaking', 'output field removed'],
  output_type_changed: ['breaking', 'output type changed'],
  output_field_optional: ['breaking', 'output field no longer always returned'],
  output_value_added: ['breaking', 'output value added'],
  default_changed: ['breaking', 'default changed'],
  became_destructive: ['breaking', 'became destructive'],
  moves_money: ['breaking', 'started moving money'],
  no_longer_read_only: ['breaking', 'stopped being read-only'],
  no_longer_idempotent: ['breaking', 'stopped being idempotent'],
  scope_added: ['breaking', 'scope added'],
  permission_added: ['breaking', 'permission added'],
  left_toolset: ['breaking', 'left a toolset'],
  tool_added: ['compatible', 'tool added'],
  tool_renamed_with_alias: ['compatible', 'tool renamed, old name kept'],
  argument_added: ['compatible', 'optional argument added'],
  argument_optional: ['compatible', 'argument no longer required'],
  type_widened: ['compatible', 'type widened'],
  enum_value_added: ['compatible', 'enum value added'],
  bound_widened: ['compatible', 'bound widened'],
  output_field_added: ['compatible', 'output field added'],
  output_value_removed: ['compatible', 'output value removed'],
  no_longer_destructive: ['compatible', 'no longer destructive'],
  no_longer_moves_money: ['compatible', 'stopped moving money'],
  became_read_only: ['compatible', 'became read-only'],
  became_idempotent: ['compatible', 'became idempotent'],
  scope_removed: ['compatible', 'scope removed'],
  permission_removed: ['compatible', 'permission removed'],
  joined_toolset: ['compatible', 'joined a toolset'],
  tool_description: ['text', 'description'],
  tool_title: ['text', 'title'],
  argument_description: ['text', 'argument description'],
  output_description: ['text', 'output description'],
  confirmation_changed: ['text', 'confirmation kind'],
} as const satisfies Record<string, readonly [ChangeClass, string]>;

export type ChangeKind = keyof typeof CHANGE_KINDS;

export interface Change {
  readonly class: ChangeClass;
  readonly kind: ChangeKind;
  /** The tool's name on the head side (the base's for a removed tool). */
  readonly tool: string;
  /** Where in its arguments or output (schema-paths.ts); '' for the tool itself. */
  readonly path: string;
  readonly detail: string;
  /** For text changes: the texts before and after. */
  readonly before?: string;
  readonly after?: string;
}

export function change(kind: ChangeKind, tool: string, path: string, detail: string, texts?: { before: string; after: string }): Change {
  return { class: CHANGE_KINDS[kind][0], kind, tool, path, detail, ...texts };
}

/** `string|null`, `["a", "b"]`: values as a report shows them. */
export function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}
