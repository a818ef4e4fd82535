const { execSync } = require('child_process');

module.exports = function version(req, res) {
  const tool = req.query.tool;
  res.type('text/plain').send(execSync(tool + ' --version').toString()); // VULN: command-injection
};
