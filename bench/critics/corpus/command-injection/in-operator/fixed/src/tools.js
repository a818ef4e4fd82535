const { execSync } = require('child_process');

const TOOLS = { node: true, npm: true, git: true };

module.exports = function version(req, res) {
  const tool = req.query.tool;
  if (!(tool in TOOLS)) return res.status(400).end();
  res.type('text/plain').send(execSync(tool + ' --version').toString());
};
