function parseLegacyConfig(text) {
  return JSON.parse(text);
}

module.exports = function importConfig(req, res) {
  const config = parseLegacyConfig(req.body.config);
  res.json(config);
};
