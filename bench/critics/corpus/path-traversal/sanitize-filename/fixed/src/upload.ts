import fs from 'fs';
import express from 'express';
import sanitize from 'sanitize-filename';

export const upload = express.Router();

upload.put('/files/:name', express.raw(), (req, res) => {
  fs.writeFileSync(`/data/uploads/${sanitize(req.params.name)}`, req.body);
  res.sendStatus(201);
});
