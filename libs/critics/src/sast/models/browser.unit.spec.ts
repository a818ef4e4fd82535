import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('browser model', [
  {
    name: 'the page URL written as HTML and used for navigation',
    vulnerable: {
      'src/page.js': `const params = new URLSearchParams(location.search);
document.getElementById('greeting').innerHTML = 'Hello ' + params.get('name'); // SINK xss
document.write(document.URL); // SINK xss
const next = location.hash.slice(1);
window.location.href = next; // SINK redirect
location.assign(decodeURIComponent(document.referrer)); // SINK redirect
`,
    },
    safe: {
      'src/page.js': `const params = new URLSearchParams(location.search);
document.getElementById('greeting').textContent = 'Hello ' + params.get('name');
const next = location.hash.slice(1);
if (next.startsWith('/') && !next.startsWith('//')) window.location.href = next;
`,
    },
  },
  {
    name: 'postMessage data without a check of the sender',
    vulnerable: {
      'src/widget.ts': `window.addEventListener('message', (event) => {
  document.body.insertAdjacentHTML('beforeend', event.data.html); // SINK xss
});
const worker = new Worker('w.js');
worker.onmessage = (event) => {
  eval(event.data); // SINK code
};
`,
    },
    safe: {
      'src/widget.ts': `window.addEventListener('message', (event) => {
  if (event.origin !== 'https://app.example.com') return;
  document.body.insertAdjacentHTML('beforeend', event.data.html);
});
`,
    },
  },
]);
