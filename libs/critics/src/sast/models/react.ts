import type { FrameworkModel } from './types.js';

/** React: `dangerouslySetInnerHTML={{ __html: x }}`. */
export const reactModel: FrameworkModel = {
  id: 'react',
  description: 'dangerouslySetInnerHTML.__html.',
  jsxSinks: [{ kind: 'xss', attribute: 'dangerouslySetInnerHTML', field: '__html' }],
};
