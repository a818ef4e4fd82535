const { VM } = require('vm2');

module.exports.evaluateRule = function evaluateRule(req, res) {
  const vm = new VM({ timeout: 50, sandbox: { order: req.body.order } });
  const accepted = vm.run(req.body.rule); // VULN: code-injection
  res.json({ accepted: Boolean(accepted) });
};
