const ejs = require('ejs');

exports.previewEmail = async (req, res) => {
  const html = await ejs.renderFile('emails/' + req.params.template + '.ejs', { user: req.user }); // VULN: path-traversal
  res.send(html);
};
