function parseLegacyConfig(text) {
  return eval('(' + text + ')'); // VULN: code-injection
}

module.exports = function importConfig(req, res) {
  const config = parseLegacyConfig(req.body.config);
  res.json(config);
};
