const ejs = require('ejs');
const path = require('path');

exports.previewEmail = async (req, res) => {
  const html = await ejs.renderFile(path.join('emails', path.basename(req.params.template) + '.ejs'), { user: req.user });
  res.send(html);
};
