import express from 'express';
import session from 'express-session';

export const app = express();
app.use(
  session({
    secret: 'keyboard cat', // VULN: secret/hardcoded-key
    resave: false,
    saveUninitialized: false,
  }),
);
