const express = require('express');
const { reviews } = require('../data/collections');

const router = express.Router();

router.get('/products/:id/reviews', (req, res, next) => {
  const id = req.params.id;
  reviews
    .find({ $where: 'this.product == ' + id }) // VULN: code-injection
    .then((list) => res.json(list))
    .catch(next);
});

module.exports = router;
