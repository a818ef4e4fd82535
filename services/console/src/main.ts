import 'reflect-metadata';
import { bootstrapService } from '@rloop/observability';
import { ConsoleRoutes } from './api/console-routes.js';
import { ConsoleModule } from './app.module.js';
import { loadConsoleConfig } from './config.js';

const { config, service } = await bootstrapService({
  name: 'console',
  loadConfig: loadConsoleConfig,
  module: (config) => ConsoleModule.forRoot(config),
});
// The pages share the service's HTTP port with /healthz, /readyz and /metrics.
service.http?.route(service.app.get(ConsoleRoutes).handle);
service.logger.log(
  `console: pages on http://${config.http.host}:${config.http.port}/ (${config.access.token === null && config.access.trustedHeader === null ? 'read-only: no ops token or trusted proxy header' : 'resume and stop need the ops token or the trusted proxy header'})`,
  'Console',
);
