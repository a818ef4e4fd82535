const { execSync } = require('child_process');

module.exports = function history(req, res) {
  const branch = req.body.branch;
  const log = execSync('git log --oneline ' + branch, { encoding: 'utf8' }); // VULN: command-injection
  res.json({ log: log.split('\n') });
};
