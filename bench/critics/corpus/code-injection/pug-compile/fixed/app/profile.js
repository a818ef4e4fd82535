const pug = require('pug');

const render = pug.compileFile('views/profile.pug');

exports.showProfile = (req, res) => {
  res.send(render({ name: String(req.query.name) }));
};
