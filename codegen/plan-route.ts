/**
 * The REST route of one operation (RouteDefinition): Koa path, non-list parameters, the ListSpec
 * derived from the list parameters, request body schemas and success status. Serving it is src/http's job.
 */
import type { ListSpec, RouteDefinition } from '../src/runtime/types.js';
import type { ListParameters, OperationModel } from './plan-operation.js';

/** `/v1/payables/{id}/settle` → `/v1/payables/:id/settle`. */
export function toKoaPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1');
}

export function planRoute(model: OperationModel): RouteDefinition {
  return {
    operation: model.ref,
    koaPath: toKoaPath(model.ref.path),
    parameters: model.parameters.map(({ name, in: where, required, schema }) => ({ name, in: where, required, schema })),
    list: model.list ? planListSpec(model.list) : null,
    requestBody: model.requestBody,
    successStatus: model.successStatus,
    mcpExcluded: model.mcp.exclude,
  };
}

/** docs/domain.md#lists: sort enum (leading `-` stripped), its default, fields enum, filters. */
export function planListSpec(list: ListParameters): ListSpec {
  const sortEnum = (list.sort?.schema.enum as unknown[] | undefined) ?? [];
  const fieldsItems = (list.fields?.schema.items as { enum?: unknown[] } | undefined)?.enum ?? [];
  const filters: Record<string, ListSpec['filters'][string]> = {};
  for (const filter of list.filters) {
    const { description: _omit, ...schema } = filter.schema;
    filters[filter.name] = { operators: filter.filterOperators ?? ['eq'], schema };
  }
  return {
    sortFields: [...new Set(sortEnum.map((value) => String(value).replace(/^-/, '')))],
    defaultSort: typeof list.sort?.schema.default === 'string' ? list.sort.schema.default : '',
    filters,
    fields: fieldsItems.map(String),
  };
}
