/**
 * Types shared between the generated registry (`generated/`) and the hand-written runtime.
 * Data only: generated operation modules import these types and nothing else from `src/`; the
 * registry also imports the pure views (views.ts) that turn operations into routes and tools.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A JSON Schema (2020-12) object as emitted by the generator. */
export type JsonSchema = { readonly [key: string]: unknown };

export type FilterOperator = 'eq' | 'in' | 'gte' | 'gt' | 'lte' | 'lt';

/** What an operation declares in the OpenAPI document (security, x-kobana-*). */
export interface OperationRef {
  /** `<resource>.<action>`, e.g. `payables.settle`. */
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template, e.g. `/v1/payables/{id}/settle`. */
  readonly path: string;
  /** Every scope of the operation's `security` requirement (all are required). */
  readonly scopes: readonly string[];
  /** `x-kobana-permission`: the panel permission the person must hold. */
  readonly permission: string;
  /** `x-kobana-moves-money`. */
  readonly movesMoney: boolean;
  /**
   * `x-kobana-moves-money.outflow`: the measure (src/api/money/measures.ts) of what the operation
   * moves out — what the spending limits, the payee allowlist and the approval threshold read —
   * or null when it moves nothing out (a receivable settled, a move undone, a reconciliation).
   */
  readonly outflow: string | null;
  /** `x-kobana-workspace` (default true): the operation runs inside one workspace. */
  readonly workspaceScoped: boolean;
  /**
   * The classification, decided once by the generator (codegen/classify.ts): an explicit
   * `x-mcp.annotations` hint wins over the rule (read-only = GET; destructive = DELETE, `cancel`
   * or money-moving; idempotent = not POST). The tool annotations are rendered from these fields
   * and `execute` asks `destructive` before a call on the `mcp` channel runs.
   */
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
  /** How the person is asked to confirm a destructive call (`x-kobana-confirm`); null when not destructive. */
  readonly confirmation: ConfirmationSpec | null;
  /**
   * `x-kobana-touches.changes`: the resources the operation writes, each with the permission and
   * scopes a caller needs for it (all required, like the operation's own; docs/security.md#resources-touched).
   */
  readonly changes: readonly ResourceAccess[];
  /** `x-kobana-touches.shows`: the resources whose records its result carries; records of a kind the caller cannot read are left out. */
  readonly shows: readonly ResourceAccess[];
  /** `x-kobana-touches.sums`: the kinds its aggregated totals add up (governed by the operation's own permission). */
  readonly sums: readonly string[];
}

/**
 * One resource an operation touches, resolved by the generator against the permission catalogue
 * and the scope grammar (src/identity/resource-access.ts): its kind (`payables`), the panel
 * permission and every scope it needs.
 */
export interface ResourceAccess {
  readonly kind: string;
  readonly permission: string;
  readonly scopes: readonly string[];
}

/**
 * The confirmation sentence of a destructive operation. `template` is rendered over the target
 * record, the body `target` (the GET operation reading it) returns: `{field}`, `{a|b}`,
 * `{field:brl}`. `describer` names a describer in src/api/confirmation for sentences needing joins.
 */
export type ConfirmationSpec =
  | { readonly template: string; readonly target: string }
  | { readonly describer: string };

/** A list's page size, as its contract's `limit` parameter declares it (src/runtime/views.ts `readPageSize`). */
export interface PageSize {
  /** Rows on a page when the caller does not say `limit`. */
  readonly default: number;
  readonly minimum: number;
  readonly maximum: number;
}

/** A list operation's query vocabulary (from its reusable list parameters). */
export interface ListSpec {
  /** What `limit` may be, and what it is when not given. */
  readonly pageSize: PageSize;
  readonly sortFields: readonly string[];
  readonly defaultSort: string;
  /** filter name → allowed operators and the value schema. */
  readonly filters: { readonly [field: string]: { readonly operators: readonly FilterOperator[]; readonly schema: JsonSchema } };
  /** names accepted by `fields` (sparse fieldsets). */
  readonly fields: readonly string[];
}

export interface ParameterSpec {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly required: boolean;
  readonly schema: JsonSchema;
}

/** A list parameter whose description is rewritten for tools: the value schema (without description) and the parameter's own description. */
export interface ListParameterDefinition {
  readonly schema: JsonSchema;
  readonly description: string | null;
}

/** A list operation's parameters (`limit`, `cursor`, `sort`, `fields` and the `x-kobana-filter` ones), as declared. */
export interface ListDefinition {
  readonly limit: JsonSchema;
  readonly cursor: JsonSchema | null;
  readonly sort: ListParameterDefinition | null;
  readonly fields: JsonSchema | null;
  /** In declaration order. */
  readonly filters: readonly ({ readonly name: string; readonly operators: readonly FilterOperator[] } & ListParameterDefinition)[];
}

/**
 * THE generated model of one OpenAPI operation (`generated/operations/<id>.gen.ts`): everything
 * the spec and its `x-` extensions say about it. The REST route, the MCP tool and the resource
 * template are views of it, built by src/runtime/views.ts — never generated copies.
 */
export interface OperationDefinition {
  readonly operation: OperationRef;
  /** The summary (else the first line of the description). */
  readonly title: string;
  /** What the tool and resource template say: `x-mcp.description`, else the operation's description (else the summary). */
  readonly description: string;
  /** The MCP tool name (`x-mcp.name` or derived); null when `x-mcp.exclude` keeps it REST-only. */
  readonly toolName: string | null;
  /** `x-mcp.aliases`: former names `tools/call` still answers until their date; absent when none. */
  readonly toolAliases?: readonly ToolAlias[];
  /** Path, plain query and header parameters (list parameters are in `list`). */
  readonly parameters: readonly ParameterSpec[];
  readonly list: ListDefinition | null;
  readonly requestBody: {
    readonly required: boolean;
    /** content type → dereferenced schema. `application/json` first when present. */
    readonly content: { readonly [contentType: string]: JsonSchema };
  } | null;
  /** The success status declared first in `responses` (200, 201, 204…). */
  readonly successStatus: number;
  /** The body of that success response. */
  readonly successResponse: SuccessResponse;
  /**
   * A second success response, `202 Accepted`, declared after the first: a money move above the
   * workspace's approval threshold answers the approval request a second person must approve
   * instead of the record (docs/security.md#money-controls). Its tool's `outputSchema` is the union
   * of both (src/runtime/output-schema.ts). Absent when the operation declares none.
   */
  readonly acceptedResponse?: SuccessResponse;
  /** The operation's OpenAPI `tags`, as declared (the MCP toolsets are built from them). */
  readonly tags: readonly string[];
  /** `x-kobana-bounds`: the cross-field and data bounds of the operation; null when it declares none. */
  readonly bounds: OperationBounds | null;
  /**
   * Inputs the tool leaves out because they admit no value (codegen/unsatisfiable.ts: an optional
   * argument with `enum: []`, say). Only the tool: the route keeps the document's schemas, so REST
   * still refuses any value for them. Absent when none.
   */
  readonly hiddenArguments?: readonly HiddenArgument[];
}

/** One input of an operation its tool does not take (OperationDefinition `hiddenArguments`). */
export interface HiddenArgument {
  /** A parameter (path, query, header) or list filter by its name, or the request body (`name` ''). */
  readonly in: 'parameter' | 'filter' | 'body';
  readonly name: string;
  /** The property path inside that input's schema; [] hides the whole input. */
  readonly path: readonly string[];
}

/**
 * `x-kobana-bounds` (openapi/README.md#extensions): what a single-field JSON Schema keyword cannot
 * say. `spans` are refused before the operation runs (VALIDATION_ERROR naming the field and the
 * bound, src/api/bounds.ts); the other bounds are read by the operation from its context.
 */
export interface OperationBounds {
  /** Two date parameters (or body fields) whose distance is at most `maxDays` days, `to` not before `from`. */
  readonly spans: readonly DateSpanBound[];
  /** Rows of its data the operation walks at most; beyond them it answers `meta.truncated`. */
  readonly maxScanned: number | null;
  /** Records of this kind a workspace may hold; a create beyond it is UNPROCESSABLE_ENTITY. */
  readonly maxPerWorkspace: number | null;
  /** Lines one uploaded file may carry (statement import). */
  readonly maxLines: number | null;
  /** Markup tags one uploaded file may carry, counted by a linear pre-scan before parsing (OFX). */
  readonly maxTags: number | null;
}

export interface DateSpanBound {
  readonly from: string;
  readonly to: string;
  readonly maxDays: number;
}

/**
 * A former name of a renamed tool (`x-mcp.aliases`, docs/generator.md#renaming-a-tool): `tools/call`
 * answers it as the tool itself (same scopes, permission and view), `tools/list` never shows it,
 * and after `until` (an ISO date, UTC) `generate --strict` fails until it is removed.
 */
export interface ToolAlias {
  readonly name: string;
  readonly until: string;
}

/** A success response's body: JSON with its schema, a file (any other media type), or none (e.g. 204). */
export type SuccessResponse =
  | { readonly kind: 'json'; readonly schema: JsonSchema }
  | { readonly kind: 'file' }
  | { readonly kind: 'none' };

/** One REST route: a view of an OperationDefinition (src/runtime/views.ts). */
export interface RouteDefinition {
  readonly operation: OperationRef;
  /** Koa/@koa/router form of the path, e.g. `/v1/payables/:id/settle`. */
  readonly koaPath: string;
  /** Non-list parameters (path, plain query, header). */
  readonly parameters: readonly ParameterSpec[];
  readonly list: ListSpec | null;
  readonly requestBody: OperationDefinition['requestBody'];
  /** The success status declared first in `responses` (200, 201, 204…). */
  readonly successStatus: number;
  /** `x-kobana-bounds`, as on the operation's definition. */
  readonly bounds: OperationBounds | null;
}

export interface ToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: false;
}

/** Where one tool argument goes when the dispatcher builds the operation input. */
export type ArgumentTarget =
  | { readonly in: 'workspace' }
  | { readonly in: 'path' | 'query' | 'header' | 'body'; readonly name: string }
  | { readonly in: 'list'; readonly name: 'limit' | 'cursor' | 'sort' | 'fields' | 'filters' };

/** One MCP tool: a view of an OperationDefinition (src/runtime/tool-view.ts). */
export interface ToolDefinition {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** What a model is shown: `argumentSchema` without the pure bounds (src/runtime/tool-schema.ts). */
  readonly inputSchema: JsonSchema;
  /** The schema the server validates the arguments with (src/mcp/tools/arguments.ts). */
  readonly argumentSchema: JsonSchema;
  /** What `structuredContent` holds (src/runtime/output-schema.ts); null when the operation answers nothing (delete, unlink). */
  readonly output: ToolOutput | null;
  /** The toolsets the tool belongs to (snake_case tag names), for `?toolsets=` views. */
  readonly toolsets: readonly string[];
  readonly annotations: ToolAnnotations;
  /** Former names `tools/call` answers as this tool (the operation's `toolAliases`); absent when none. */
  readonly aliases?: readonly ToolAlias[];
  readonly operation: OperationRef;
  /** tool argument name → its target in the operation input. */
  readonly args: { readonly [argument: string]: ArgumentTarget };
  /**
   * The body schema's `minProperties` (e.g. 1 for an update: "change something"), which the
   * flattened inputSchema cannot say; the dispatcher's argument check enforces it. 0 when none.
   */
  readonly minBodyArguments: number;
}

/** What src/runtime/tool-view.ts builds; views.ts adds the output schema and the toolsets. */
export type ToolInputView = Omit<ToolDefinition, 'output' | 'toolsets'>;

/** A tool's typed result: the `outputSchema` (always `type: "object"`) and whether the body is wrapped as `{result}`. */
export interface ToolOutput {
  readonly schema: JsonSchema;
  /** The body is not an object: `structuredContent` is `{result: <body>}`. */
  readonly wrapped: boolean;
  /**
   * The GET tool whose `outputSchema` describes this body in full, when `schema` only points at it
   * (a write answering the record its resource's get returns; src/runtime/output-schema.ts).
   */
  readonly sameAs: string | null;
  /**
   * A money move that may wait for a second person (`acceptedResponse`): `schema` is the union of
   * the record and the approval request, and these are its two sides, each as its own tool would
   * describe it (so `pointAtGetters` can point at both). Absent for any other tool.
   */
  readonly union?: { readonly record: JsonSchema; readonly pending: JsonSchema };
}

/** A resource template: a view of a `GET /v1/<resource>/{id}` OperationDefinition (src/runtime/views.ts). */
export interface ResourceTemplateDefinition {
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: 'application/json';
  readonly operation: OperationRef;
}
