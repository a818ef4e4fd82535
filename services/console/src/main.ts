import 'reflect-metadata';
import { describeError } from '@rloop/contracts';
import { startObservedService } from '@rloop/observability';
import { ConsoleRoutes } from './api/console-routes.js';
import { ConsoleModule } from './app.module.js';
import { loadConsoleConfig } from './config.js';

const config = await loadConsoleConfig().catch((error: unknown) => {
  process.stderr.write(`${describeError(error)}\n`);
  process.exit(1);
});
const service = await startObservedService({ name: 'console', module: ConsoleModule.forRoot(config), bus: config.bus, logFormat: config.logFormat, logLevel: config.logLevel, ops: config.ops });
// The pages share the service's HTTP port with /healthz, /readyz and /metrics.
service.http?.route(service.app.get(ConsoleRoutes).handle);
service.logger.log(`console: pages on http://${config.http.host}:${config.http.port}/ (${config.access.token === null && config.access.trustedHeader === null ? 'read-only: no ops token or trusted proxy header' : 'resume and stop need the ops token or the trusted proxy header'})`, 'Console');
