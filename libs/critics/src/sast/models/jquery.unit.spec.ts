import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('jquery model', [
  {
    name: "$(…).html() of the page's hash",
    vulnerable: { 'web/tabs.js': `$('#title').html(decodeURIComponent(location.hash.slice(1))); // SINK xss\n` },
    safe: { 'web/tabs.js': `$('#title').text(decodeURIComponent(location.hash.slice(1)));\n` },
  },
]);
