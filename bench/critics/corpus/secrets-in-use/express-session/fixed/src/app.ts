import express from 'express';
import session from 'express-session';
import { config } from './config';

export const app = express();
app.use(
  session({
    secret: config.sessionSecret,
    resave: false,
    saveUninitialized: false,
  }),
);
