import express from 'express';
import multer from 'multer';
import { exec } from 'child_process';

const upload = multer({ dest: '/tmp/uploads' });
export const router = express.Router();

router.post('/scan', upload.single('file'), (req, res) => {
  const name = req.file?.originalname ?? 'unknown';
  exec('clamscan /tmp/uploads/' + name, (err) => res.json({ infected: Boolean(err) })); // VULN: command-injection
});
