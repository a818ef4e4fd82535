import express from 'express';

export const pages = express.Router();
const TOPICS = new Set(['billing', 'account', 'privacy']);

pages.get('/help/:topic', (req, res) => {
  if (!TOPICS.has(req.params.topic)) return res.status(404).render('help/index');
  res.render(`help/${req.params.topic}`);
});
