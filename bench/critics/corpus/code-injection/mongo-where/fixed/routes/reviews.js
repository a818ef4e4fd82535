const express = require('express');
const { reviews } = require('../data/collections');

const router = express.Router();

router.get('/products/:id/reviews', (req, res, next) => {
  const id = Number.parseInt(req.params.id, 10);
  reviews
    .find({ product: id })
    .then((list) => res.json(list))
    .catch(next);
});

module.exports = router;
