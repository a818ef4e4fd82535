import type { FrameworkModel } from './types.js';

/** Node's process: the command line and the environment. */
export const nodeProcessModel: FrameworkModel = {
  id: 'node:process',
  description: 'process.argv (argv), process.env.* (env); process.exit ends a path.',
  entryHint: /process\.(env|argv)/,
  globalObjects: { process: 'process' },
  terminators: [/^(process\.(exit|abort)|Deno\.exit)$/],
  globals: [
    { object: 'process', property: 'env', yields: { global: 'process.env' } },
    { object: 'process', property: 'argv', yields: { origin: 'argv' } },
    { object: 'process.env', property: '*', yields: { origin: 'env' } },
  ],
};
