// Operations for every service: Prometheus metrics, /healthz /readyz /metrics, OpenTelemetry traces
// carried in NATS headers, and the bus observer that feeds them. See docs/operations.md.
export { FleetMetrics } from './metrics.js';
export { Tracing, runTraceIds, TRACEPARENT, type TracingOptions } from './tracing.js';
export { FleetObserver, runOf, type FleetObserverOptions } from './fleet-observer.js';
export {
  OpsServer,
  checkReadiness,
  type OpsServerOptions,
  type ReadinessCheck,
  type ReadinessReport,
  type RouteHandler,
} from './ops-server.js';
export { startObservedService, type ObservedService, type ObservedServiceOptions } from './service.js';
export {
  bootstrapService,
  loadConfigOrExit,
  exitOnStartFailure,
  type BootstrapOptions,
  type BootstrapSettings,
  type BootstrapExtras,
} from './bootstrap.js';
