const { spawn } = require('child_process');

exports.extract = (req, res) => {
  const archive = req.body.archive;
  const proc = spawn('tar', ['xzf', archive, '-C', '/tmp/out']);
  proc.on('exit', (code) => res.json({ code }));
};
