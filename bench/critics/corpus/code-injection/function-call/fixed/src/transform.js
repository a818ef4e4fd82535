const MAPPERS = { upper: (row) => String(row).toUpperCase(), lower: (row) => String(row).toLowerCase() };

exports.transform = (req, res) => {
  const mapper = MAPPERS[req.body.mapper];
  if (!mapper) return res.status(400).end();
  res.json(req.body.rows.map(mapper));
};
