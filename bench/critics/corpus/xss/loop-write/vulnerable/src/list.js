exports.list = function (req, res) {
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.write('<ul>');
  for (const item of req.body.items) {
    res.write(`<li>${item}</li>`); // VULN: xss
  }
  res.end('</ul>');
};
