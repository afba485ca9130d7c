/**
 * The import rules of kobana-finance, checked by dependency-cruiser (`npm run lint:deps`, run in
 * `.ci/run` after `npm run build`). docs/architecture.md ("Layers and import rules") explains
 * each layer; every rule below names the sentence it enforces. The run must end with zero
 * violations: a new import that breaks a rule fails CI.
 *
 * Layers, lowest first (a folder may import only folders on its own level or below):
 *   src/runtime, src/identity  ·  src/config.ts  ·  src/store  ·  src/api  ·  src/seed
 *   src/auth  ·  src/http  ·  src/oauth  ·  src/mcp (the MCP core, its tool path in src/mcp/tools)
 *   src/mcp/features: resources → prompts → completions, composed by src/mcp/features/index.ts
 *   src/*.ts (wiring: app, bootstrap, main, startup, starting-app)
 * generated/ and codegen/ stand apart: they reach only src/runtime (codegen/ also the catalogue in src/identity;
 * the handler index, generated/handlers.gen.ts, also the handlers in src/api/operations). Only src/bootstrap.ts
 * imports the registry and the handler index; it injects them (Services.registry).
 *
 * No cycle between folders either: that rule runs in a second pass, `.dependency-cruiser.folders.cjs`
 * (the folder view, which leaves out the imports of the generated handler index; its header says why).
 *
 * TypeScript 7 has no JavaScript compiler API, so the files are parsed with swc (`@swc/core`);
 * `tsPreCompilationDeps` keeps type-only imports in the graph, so they obey the rules too.
 */

/** Folders under src/ that make up the transports and the MCP features (everything above src/api). */
const ABOVE_API = '^src/(auth|http|oauth|mcp|seed)/';

/** The wiring files at the top of src/. */
const WIRING = '^src/(app|bootstrap|main|startup|starting-app)\\.ts$';

/** The generated handler index: the one generated module that imports src/ beyond src/runtime (the handlers in src/api/operations). */
const HANDLER_INDEX = '^generated/handlers\\.gen\\.ts$';

/** The generated registry (routes, tools, resource templates) and the handler index: src/bootstrap.ts injects them. */
const REGISTRIES = '^generated/(registry|handlers)\\.gen\\.ts$';

/** The OpenTelemetry adapter (src/http/otel-tracing.ts): the one module that imports OpenTelemetry. */
const OTEL_ADAPTER = '^src/http/otel-tracing\\.ts$';

/** The MCP core: src/mcp without the finance features in src/mcp/features. */
const MCP_CORE = { path: '^src/mcp/', pathNot: '^src/mcp/features/' };

module.exports = {
  forbidden: [
    {
      name: 'generated-only-runtime',
      comment: 'generated/ imports only src/runtime (the types the generated modules are built from): nothing else of src/, no package. The handler index is the one exception (handler-index-only-operations).',
      severity: 'error',
      from: { path: '^generated/', pathNot: HANDLER_INDEX },
      to: { pathNot: '^(generated|src/runtime)/' },
    },
    {
      name: 'handler-index-only-operations',
      comment: 'generated/handlers.gen.ts is the handler index the generator collects from src/api/operations, for src/bootstrap.ts: it imports the handler modules in src/api/operations and nothing else.',
      severity: 'error',
      from: { path: HANDLER_INDEX },
      to: { pathNot: '^src/api/operations/[^/]+\\.ts$' },
    },
    {
      name: 'registries-only-bootstrap',
      comment: 'The generated registry and handler index are injected from src/bootstrap.ts (Services.registry): no other module imports generated/registry.gen.ts or generated/handlers.gen.ts. src/api/rules may still import one definition, generated/operations/*.gen.ts.',
      severity: 'error',
      from: { path: '^(src|codegen|generated)/', pathNot: '^src/bootstrap\\.ts$' },
      to: { path: REGISTRIES },
    },
    {
      name: 'codegen-not-src',
      comment: 'codegen/ never imports src/ logic; it may read the shared src/runtime types, and src/identity (the permission catalogue and scope grammar, import-free) to resolve x-kobana-touches.',
      severity: 'error',
      from: { path: '^codegen/' },
      to: { path: '^src/', pathNot: '^src/(runtime|identity)/' },
    },
    {
      name: 'src-not-build-or-tests',
      comment: 'The server never imports the generator or the tests.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(codegen|test|bench|conformance|scripts)/' },
    },
    {
      name: 'identity-neutral',
      comment: 'src/identity (Caller, scope grammar, permission catalogue) imports nothing of src/ but src/runtime, so every layer can use it without a cycle.',
      severity: 'error',
      from: { path: '^src/identity/' },
      to: { path: '^src/', pathNot: '^src/(identity|runtime)/' },
    },
    {
      name: 'store-at-the-bottom',
      comment: 'src/store (database, migrations, workspace guard) imports only itself, src/runtime, src/identity and src/config.ts; the demo seed lives in src/seed because it needs src/api rules.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store/|runtime/|identity/|config\\.ts$)' },
    },
    {
      name: 'api-transport-agnostic',
      comment: 'src/api knows nothing of HTTP, Koa or MCP, and sits below authentication: it imports no transport, no MCP feature, no src/auth and no wiring module.',
      severity: 'error',
      from: { path: '^src/api/' },
      to: { path: [ABOVE_API, '^src/(app|bootstrap|main|startup|starting-app)\\.ts$', '^node_modules/(koa|@koa/[^/]+|koa-[^/]+)/'] },
    },
    {
      name: 'api-one-face',
      comment: 'src/api has one face: outside src/api, only src/api/index.ts is imported (the generated handler index, generated/handlers.gen.ts, is the one other door: it lists the handlers in src/api/operations for src/bootstrap.ts).',
      severity: 'error',
      from: { path: '^(src|codegen|generated)/', pathNot: ['^src/api/', HANDLER_INDEX] },
      to: { path: '^src/api/', pathNot: '^src/api/index\\.ts$' },
    },
    {
      name: 'mcp-not-api',
      comment: 'The MCP core (src/mcp outside src/mcp/features, its tool path src/mcp/tools included) reaches src/api only through src/api/index.ts: OperationService.execute, the argument validation, and the channel-neutral confirmation (sentences, sealing, nonces, the proof) in src/api/confirmation. The finance features in src/mcp/features read finance data through src/api/index.ts too (api-one-face).',
      severity: 'error',
      from: MCP_CORE,
      to: { path: '^src/api/', pathNot: '^src/api/index\\.ts$' },
    },
    {
      name: 'mcp-core-not-features',
      comment: 'The MCP core takes the features as providers (the interfaces in src/mcp/methods) and never imports src/mcp/features; src/app.ts wires them in.',
      severity: 'error',
      from: MCP_CORE,
      to: { path: '^src/mcp/features/' },
    },
    {
      name: 'features-one-way',
      comment: 'The MCP features import one way: completions → prompts → resources (src/mcp/features/index.ts composes them). None imports src/app.ts.',
      severity: 'error',
      from: { path: '^src/mcp/features/resources/' },
      to: { path: ['^src/mcp/features/(prompts|completions)/', '^src/mcp/features/index\\.ts$', '^src/app\\.ts$'] },
    },
    {
      name: 'features-one-way-prompts',
      comment: 'See features-one-way: prompts may use resources, never completions.',
      severity: 'error',
      from: { path: '^src/mcp/features/prompts/' },
      to: { path: ['^src/mcp/features/completions/', '^src/mcp/features/index\\.ts$', '^src/app\\.ts$'] },
    },
    {
      name: 'wiring-at-the-top',
      comment: 'The wiring files (src/app.ts, src/bootstrap.ts, src/main.ts, src/startup.ts, src/starting-app.ts) are imported by nothing in the folders of src/: src/http takes narrow service types (HealthServices, ShutdownServices), not bootstrap\'s Services.',
      severity: 'error',
      from: { path: '^src/[^/]+/' },
      to: { path: WIRING },
    },
    {
      name: 'http-not-auth',
      comment: 'src/auth builds on the HTTP primitives (HttpError, Metrics, the failed-auth throttle); src/http never imports src/auth: the REST router receives `bearer` as a dependency, and AuthState/Identity live in src/identity.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/auth/' },
    },
    {
      name: 'otel-only-adapter',
      comment: 'Only src/http/otel-tracing.ts imports OpenTelemetry (the API, the SDK, its exporters and resources); the app speaks the seam in src/http/tracing.ts (docs/operations.md#trace-context).',
      severity: 'error',
      from: { pathNot: OTEL_ADAPTER },
      // (^|/): a work tree whose node_modules is a symlink resolves packages through it.
      to: { path: '(^|/)node_modules/@opentelemetry/' },
    },
    {
      name: 'otel-adapter-on-demand',
      comment: 'The OpenTelemetry adapter is loaded on demand, as pg is with DATABASE_URL only: src/bootstrap.ts alone reaches it, by a dynamic import when an exporter is configured (its exporter type too, as `import()` in a type, erased), so with tracing off the SDK is never loaded. That the import is dynamic is checked by test/http/tracing-on-demand.test.ts, not here: dependency-cruiser reports a static and a dynamic import of one module as one dynamic dependency.',
      severity: 'error',
      from: { pathNot: '^src/bootstrap\\.ts$' },
      to: { path: OTEL_ADAPTER },
    },
    {
      name: 'no-module-cycles',
      comment: 'No cycle between modules.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'Every relative import resolves to a file.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
  },
};
