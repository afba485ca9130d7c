import { tools, routes, resourceTemplates } from '../generated/registry.gen.js';
const pick = process.argv.slice(2);
for (const t of tools) if (pick.includes(t.name)) console.log(JSON.stringify({ ...t, inputSchema: t.inputSchema }, null, 1));
console.log(resourceTemplates.map((r) => r.uriTemplate + ' ' + r.name).join('\n'));
console.log(routes.filter((r) => r.mcpExcluded).map((r) => r.operation.operationId));
for (const t of tools) console.log(t.name, t.annotations.readOnlyHint ? 'R' : '-', t.annotations.destructiveHint ? 'D' : '-', t.annotations.idempotentHint ? 'I' : '-', Object.keys((t.inputSchema as any).properties).join(','));
