const cp = require('child_process');

function convert(input, format) {
  return cp.execSync('pandoc ' + input + ' -t ' + format).toString(); // VULN: command-injection
}

module.exports = (req, res) => res.send(convert('/tmp/doc.md', req.query.format));
