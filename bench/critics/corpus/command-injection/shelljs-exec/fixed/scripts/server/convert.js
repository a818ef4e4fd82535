const { execFile } = require('child_process');
const path = require('path');

const FORMATS = new Set(['png', 'jpg', 'webp']);

module.exports = (req, res) => {
  const { input, format } = req.query;
  if (!FORMATS.has(format)) return res.status(400).end();
  execFile('convert', [path.join('uploads', path.basename(input)), `out.${format}`], (error) => res.json({ code: error ? 1 : 0 }));
};
