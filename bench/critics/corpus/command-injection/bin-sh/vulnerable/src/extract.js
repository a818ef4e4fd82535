const { spawn } = require('child_process');

exports.extract = (req, res) => {
  const archive = req.body.archive;
  const proc = spawn('/bin/sh', ['-c', 'tar xzf ' + archive + ' -C /tmp/out']); // VULN: command-injection
  proc.on('exit', (code) => res.json({ code }));
};
