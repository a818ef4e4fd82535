import type { FrameworkModel } from './types.js';

/**
 * Template engines: a template compiled from input is server-side template injection (most of
 * these engines run JavaScript from the template); a template file named by input is a path. The
 * data passed to a compiled template is not a sink (the engines escape or it is the point).
 */
export const templatesModel: FrameworkModel = {
  id: 'template-engines',
  description:
    'ejs, pug/jade, handlebars, nunjucks, lodash/underscore template, doT, eta, hogan, twig, art-template: templates compiled from input, template files named by input.',
  sinks: [
    {
      kind: 'code',
      call: {
        module: ['ejs', 'eta', 'squirrelly', 'art-template'],
        member: ['render', 'compile', 'renderString', 'renderAsync'],
      },
      args: [0],
    },
    {
      kind: 'code',
      call: {
        module: ['pug', 'jade'],
        member: ['compile', 'render', 'compileClient', 'compileClientWithDependenciesTracked'],
      },
      args: [0],
    },
    { kind: 'code', call: { module: 'handlebars', member: ['compile', 'precompile'] }, args: [0] },
    { kind: 'code', call: { module: 'handlebars', member: ['compile', 'precompile'], instance: true }, args: [0] },
    { kind: 'code', call: { module: 'nunjucks', member: ['renderString', 'compile'] }, args: [0] },
    {
      kind: 'code',
      call: { module: ['nunjucks', 'eta'], member: ['renderString', 'compile', 'renderStringAsync'], instance: true },
      args: [0],
    },
    { kind: 'code', call: { module: 'nunjucks', member: 'Template' }, construct: true, args: [0] },
    { kind: 'code', call: { module: ['lodash', 'lodash-es', 'underscore'], member: 'template' }, args: [0] },
    { kind: 'code', call: { module: 'lodash.template', member: '' }, args: [0] },
    { kind: 'code', call: { module: ['dot', 'dot-template'], member: ['template', 'compile'] }, args: [0] },
    { kind: 'code', call: { module: ['hogan.js', 'hogan'], member: 'compile' }, args: [0] },
    { kind: 'code', call: { module: 'twig', member: 'twig' }, args: [{ index: 0, fields: ['data'] }] },
    { kind: 'path', call: { module: ['ejs', 'pug', 'jade', 'eta'], member: ['renderFile', 'compileFile'] }, args: [0] },
  ],
  instanceModules: ['nunjucks', 'eta', 'handlebars'],
};
