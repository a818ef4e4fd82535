const cp = require('child_process');
const FORMATS = new Set(['html', 'pdf', 'docx']);

function convert(input, format) {
  if (!FORMATS.has(format)) throw new Error('unsupported format');
  return cp.execFileSync('pandoc', [input, '-t', format]).toString();
}

module.exports = (req, res) => res.type('text/plain').send(convert('/tmp/doc.md', req.query.format));
