const escapeHtml = require('escape-html');

exports.list = function (req, res) {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.write('<ul>');
  for (const item of req.body.items) {
    res.write(`<li>${escapeHtml(String(item))}</li>`);
  }
  res.end('</ul>');
};
