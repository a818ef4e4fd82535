import { isTaint } from '../values.js';
import type { FrameworkModel } from './types.js';

/** The language's own ways of running text as code. */
export const javascriptModel: FrameworkModel = {
  id: 'javascript',
  description: 'eval, the Function constructor, string timers and dynamic require: text run as code.',
  sinks: [
    { kind: 'code', call: { global: 'eval' }, args: [0] },
    { kind: 'code', call: { global: 'Function' }, args: ['all'] },
    { kind: 'code', call: { global: 'Function' }, construct: true, args: ['all'], label: 'new Function' },
    // A function passed to a timer is code already; only a string is compiled.
    {
      kind: 'code',
      call: { global: ['setTimeout', 'setInterval', 'setImmediate'] },
      args: [0],
      when: (call) => isTaint(call.args[0] ?? null),
    },
    { kind: 'code', call: { global: 'require' }, args: [0] },
  ],
};
