'use strict';
const needle = require('needle');

const FEEDS_ORIGIN = 'https://feeds.example.com/';

module.exports = {
  method: 'POST',
  path: '/feeds/refresh',
  handler: async (request, h) => {
    const feedUrl = request.payload.feed;
    if (typeof feedUrl !== 'string' || !feedUrl.startsWith('https://feeds.example.com/')) {
      return h.response({ error: 'unknown feed' }).code(400);
    }
    const result = await needle('get', feedUrl, { follow_max: 0 });
    return h.response({ items: result.body.length, origin: FEEDS_ORIGIN }).code(200);
  },
};
