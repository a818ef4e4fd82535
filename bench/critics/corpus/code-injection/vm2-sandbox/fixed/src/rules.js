const RULES = {
  bigOrder: (order) => order.total > 1000,
  domestic: (order) => order.country === 'DE',
};

module.exports.evaluateRule = function evaluateRule(req, res) {
  const rule = RULES[req.body.rule];
  if (typeof rule !== 'function' || !Object.hasOwn(RULES, req.body.rule)) return res.status(400).end();
  res.json({ accepted: Boolean(rule(req.body.order)) });
};
