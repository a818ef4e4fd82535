exports.transform = (req, res) => {
  const mapper = new Function('row', req.body.mapper); // VULN: code-injection
  res.json(req.body.rows.map(mapper));
};
