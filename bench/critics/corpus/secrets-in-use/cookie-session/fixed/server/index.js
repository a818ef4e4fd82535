const express = require('express');
const cookieSession = require('cookie-session');

const app = express();
app.use(cookieSession({ name: 'session', keys: (process.env.COOKIE_KEYS || '').split(',') }));
module.exports = app;
