import type { FrameworkModel } from './types.js';

/**
 * Packages whose functions escape or sanitise for one kind of sink. (Project helpers named
 * escape…/sanitize… are recognised by name in rules.ts.)
 */
export const sanitisersModel: FrameworkModel = {
  id: 'sanitisers',
  description:
    'escape-html, he, DOMPurify, sanitize-html, xss, validator.escape (HTML); sqlstring, pg-format, pg-escape (SQL); shell-quote (shell); sanitize-filename, filenamify (file names).',
  sanitisers: [
    {
      call: {
        module: ['escape-html', 'he', 'dompurify', 'isomorphic-dompurify', 'sanitize-html', 'xss'],
        member: /.*/,
      },
      clean: ['xss'],
    },
    { call: { module: 'validator', member: 'escape' }, clean: ['xss'] },
    { call: { module: ['sqlstring', 'pg-format', 'pg-escape'], member: /.*/ }, clean: ['sql'] },
    { call: { module: 'shell-quote', member: 'quote' }, clean: ['command'] },
    { call: { module: ['sanitize-filename', 'filenamify'], member: /.*/ }, clean: ['path'] },
  ],
};
