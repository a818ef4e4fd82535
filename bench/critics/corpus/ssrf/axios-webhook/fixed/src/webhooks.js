const axios = require('axios');
const { Router } = require('express');

const router = Router();

router.post('/webhooks/test', async (req, res, next) => {
  try {
    const { hookId } = req.body;
    const response = await axios.post(`https://hooks.example.com/v1/hooks/${encodeURIComponent(hookId)}/ping`, { event: 'ping' }, { timeout: 3000 });
    res.json({ status: response.status });
  } catch (err) {
    next(err);
  }
});

module.exports = router;
