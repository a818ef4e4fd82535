const express = require('express');
const cookieSession = require('cookie-session');

const app = express();
app.use(cookieSession({ name: 'session', keys: ['old-key-2023', 'new-key-2024'] })); // VULN: secret/hardcoded-key
module.exports = app;
