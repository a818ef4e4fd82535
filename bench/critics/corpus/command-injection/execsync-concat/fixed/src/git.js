const { execFileSync } = require('child_process');

module.exports = function history(req, res) {
  const branch = req.body.branch;
  const log = execFileSync('git', ['log', '--oneline', '--', branch], { encoding: 'utf8' });
  res.json({ log: log.split('\n') });
};
