exports.reviews = require('./db').collection('reviews');
