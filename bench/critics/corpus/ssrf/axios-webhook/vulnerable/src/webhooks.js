const axios = require('axios');
const { Router } = require('express');

const router = Router();

router.post('/webhooks/test', async (req, res, next) => {
  try {
    const { callbackUrl } = req.body;
    const response = await axios.post(callbackUrl, { event: 'ping' }, { timeout: 3000 }); // VULN: ssrf
    res.json({ status: response.status });
  } catch (err) {
    next(err);
  }
});

module.exports = router;
