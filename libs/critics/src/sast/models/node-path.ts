import type { FrameworkModel } from './types.js';

/**
 * How taint passes through Node's path, url, util, querystring and friends. (`path/posix`,
 * `upath`, `pathe` are normalised to path.)
 */
export const nodePathModel: FrameworkModel = {
  id: 'node:path',
  description:
    'path.basename/extname (a file name: clean for paths), resolve/join/normalize (normalised: a containment check on the result counts), relative, dirname/parse/format; url.parse/resolve; util.format, querystring, qs, Buffer: taint passes through.',
  passThrough: [
    { module: 'path', member: ['basename', 'extname'], effect: 'clean-path' },
    { module: 'path', member: ['resolve', 'join', 'normalize'], effect: 'normalise' },
    { module: 'path', member: 'relative', effect: 'relative' },
    { module: 'path', member: ['dirname', 'parse', 'format', 'toNamespacedPath'], effect: 'first' },
    { module: 'url', member: ['parse', 'resolve'], effect: 'url' },
    { module: 'util', member: 'promisify', effect: 'identity' },
    { module: ['util', 'querystring', 'url', 'string_decoder', 'buffer', 'qs'], member: '*', effect: 'all' },
    {
      module: ['validator', 'class-validator'],
      member: ['toInt', 'toFloat', 'toBoolean', 'toDate'],
      effect: 'numeric',
    },
  ],
};
