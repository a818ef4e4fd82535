import fs from 'fs';
import express from 'express';

export const upload = express.Router();

upload.put('/files/:name', express.raw(), (req, res) => {
  fs.writeFileSync(`/data/uploads/${req.params.name}`, req.body); // VULN: path-traversal
  res.sendStatus(201);
});
