import express from 'express';
import multer from 'multer';
import { execFile } from 'child_process';

const upload = multer({ dest: '/tmp/uploads' });
export const router = express.Router();

router.post('/scan', upload.single('file'), (req, res) => {
  const stored = req.file?.path ?? '';
  execFile('clamscan', [stored], (err) => res.json({ infected: Boolean(err) }));
});
