const router = require('express').Router();

router.get('/invoices/download', (req, res) => {
  res.download(String(req.query.name), 'invoice.pdf', { root: 'storage/invoices' });
});

module.exports = router;
