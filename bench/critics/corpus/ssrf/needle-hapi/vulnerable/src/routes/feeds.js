'use strict';
const needle = require('needle');

module.exports = {
  method: 'POST',
  path: '/feeds/refresh',
  handler: async (request, h) => {
    const feedUrl = request.payload.feed;
    const result = await needle('get', feedUrl, { follow_max: 3 }); // VULN: ssrf
    return h.response({ items: result.body.length }).code(200);
  },
};
