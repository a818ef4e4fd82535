import type { FrameworkModel } from './types.js';

/** jQuery: `$(el).html(x)` writes HTML. */
export const jqueryModel: FrameworkModel = {
  id: 'jquery',
  description: '$(…).html(x) / jQuery(…).html(x).',
  sinks: [{ kind: 'xss', call: { method: 'html', receiver: /^(\$|jQuery)/ }, args: [0] }],
};
