const pug = require('pug');
const fs = require('fs');

exports.showProfile = (req, res) => {
  let template = fs.readFileSync('views/profile.pug', 'utf8');
  template = template.replace('_NAME_', req.query.name);
  const render = pug.compile(template); // VULN: code-injection
  res.send(render({}));
};
