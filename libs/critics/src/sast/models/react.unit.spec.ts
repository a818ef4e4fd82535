import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('react model', [
  {
    name: 'dangerouslySetInnerHTML from the query string',
    vulnerable: {
      'src/Banner.tsx': `export function Banner() {
  const message = new URLSearchParams(window.location.search).get('message') ?? '';
  return <div dangerouslySetInnerHTML={{ __html: message }} />; // SINK xss
}
`,
    },
    safe: {
      'src/Banner.tsx': `import DOMPurify from 'dompurify';
export function Banner() {
  const message = new URLSearchParams(window.location.search).get('message') ?? '';
  return <div dangerouslySetInnerHTML={{ __html: DOMPurify.sanitize(message) }} />;
}
`,
    },
  },
]);
