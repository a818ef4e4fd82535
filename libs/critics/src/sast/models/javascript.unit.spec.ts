import { describeModelCases } from '../../__fixtures__/taint.js';

describeModelCases('javascript model (eval, Function, timers, require)', [
  {
    name: 'eval, new Function, Function(), a string timer and a dynamic require of request input',
    vulnerable: {
      'src/calc.js': `module.exports = (req, res) => {
  const expr = req.query.expr;
  eval(expr); // SINK code
  new Function('x', expr); // SINK code
  Function(expr)(); // SINK code
  setTimeout('tick(' + expr + ')', 10); // SINK code
  require('./plugins/' + req.query.plugin); // SINK code
  res.end();
};
`,
    },
    safe: {
      'src/calc.js': `const PLUGINS = { csv: require('./plugins/csv'), json: require('./plugins/json') };
module.exports = (req, res) => {
  const value = Number(req.query.expr);
  setTimeout(() => tick(value), 10);
  const plugin = PLUGINS[req.query.plugin];
  if (!Object.hasOwn(PLUGINS, req.query.plugin)) return res.status(400).end();
  res.json(plugin.run(value));
};
`,
    },
  },
  {
    name: 'a method named eval (not the global function)',
    options: { kinds: ['code'] },
    vulnerable: {
      'src/rules.js': `const engine = { eval(rule) { return String(rule).length; } };
module.exports = (req, res) => res.json({ n: engine.eval(req.query.rule) });
`,
    },
  },
]);
