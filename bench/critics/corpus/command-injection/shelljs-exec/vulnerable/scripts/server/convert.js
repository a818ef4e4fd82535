const shell = require('shelljs');

module.exports = (req, res) => {
  const { input, format } = req.query;
  const result = shell.exec(`convert uploads/${input} out.${format}`, { silent: true }); // VULN: command-injection
  res.json({ code: result.code });
};
