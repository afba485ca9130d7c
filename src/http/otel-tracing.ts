/**
 * The tracing seam (src/http/tracing.ts) on the OpenTelemetry SDK: a Node tracer provider of
 * its own (not registered globally: every span is given its parent explicitly), the exporters
 * `OTEL_TRACES_EXPORTER` names (`otlp`: OTLP over HTTP/JSON, to `OTEL_EXPORTER_OTLP[_TRACES]_ENDPOINT`;
 * `console`), batched. The SDK reads the rest of its standard variables itself (sampler, batch
 * sizes, `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, the exporter's headers and timeout).
 * The one module that imports the SDK, loaded only by src/bootstrap.ts's dynamic import when an
 * exporter is configured (dependency-cruiser rules otel-only-adapter, otel-adapter-on-demand):
 * with tracing off, none of it is loaded (docs/operations.md#trace-context).
 */
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, createTraceState, trace, type Context, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, SimpleSpanProcessor, type SpanExporter, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';
import type { TraceExporterName } from '../config.js';
import type { TraceParent } from './trace-context.js';
import type { SpanAttributes, SpanRequest, TraceIds, TraceSpan, Tracing } from './tracing.js';

export type { SpanExporter } from '@opentelemetry/sdk-trace-base';

export interface OtelTracingOptions {
  /** The exporters configured (src/config.ts reads `OTEL_TRACES_EXPORTER`). */
  readonly exporters: readonly TraceExporterName[];
  /** Replaces the configured exporters (tests: an `InMemorySpanExporter`); each span is exported as it ends. */
  readonly spanExporter?: SpanExporter | undefined;
}

/** The instrumentation scope of every span. */
const SCOPE = 'kobana-finance';

class OtelSpan implements TraceSpan {
  readonly ids: TraceIds;
  constructor(readonly span: Span) {
    const { traceId, spanId } = span.spanContext();
    this.ids = { traceId, spanId };
  }
  setAttributes(attributes: SpanAttributes): void {
    this.span.setAttributes(attributes);
  }
  rename(name: string): void {
    this.span.updateName(name);
  }
  fail(errorType: string): void {
    this.span.setAttribute('error.type', errorType);
    this.span.setStatus({ code: SpanStatusCode.ERROR });
  }
  end(): void {
    this.span.end();
  }
}

function remoteContext(parent: TraceParent): Context {
  return trace.setSpanContext(ROOT_CONTEXT, {
    traceId: parent.traceId,
    spanId: parent.spanId,
    traceFlags: parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
    isRemote: true,
    ...(parent.traceState === undefined ? {} : { traceState: createTraceState(parent.traceState) }),
  });
}

/** The span's parent context: the received one, else a span of ours, else none (a new trace). */
function parentContext(request: SpanRequest): Context {
  if (request.remoteParent !== undefined) return remoteContext(request.remoteParent);
  if (request.parent instanceof OtelSpan) return trace.setSpan(ROOT_CONTEXT, request.parent.span);
  return ROOT_CONTEXT;
}

function configuredExporter(name: TraceExporterName): SpanExporter {
  return name === 'otlp' ? new OTLPTraceExporter() : new ConsoleSpanExporter();
}

function spanProcessors(options: OtelTracingOptions): SpanProcessor[] {
  if (options.spanExporter !== undefined) return [new SimpleSpanProcessor(options.spanExporter)];
  return options.exporters.map((name) => new BatchSpanProcessor(configuredExporter(name)));
}

export function createOtelTracing(options: OtelTracingOptions): Tracing {
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES (the env detector) win over the default name.
  const resource = defaultResource().merge(resourceFromAttributes({ 'service.name': SCOPE })).merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors: spanProcessors(options) });
  const tracer = provider.getTracer(SCOPE);
  return {
    exporting: true,
    startSpan(request) {
      const links = request.link instanceof OtelSpan ? [{ context: request.link.span.spanContext() }] : [];
      const span = tracer.startSpan(request.name, {
        kind: request.kind === 'server' ? SpanKind.SERVER : SpanKind.INTERNAL,
        links,
        ...(request.attributes === undefined ? {} : { attributes: request.attributes }),
      }, parentContext(request));
      return new OtelSpan(span);
    },
    shutdown: () => provider.shutdown(),
  };
}
