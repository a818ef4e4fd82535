import express from 'express';

export const pages = express.Router();

pages.get('/help/:topic', (req, res) => {
  res.render(`help/${req.params.topic}`); // VULN: path-traversal
});
