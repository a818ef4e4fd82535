const router = require('express').Router();

router.get('/invoices/download', (req, res) => {
  res.download('storage/invoices/' + req.query.name); // VULN: path-traversal
});

module.exports = router;
