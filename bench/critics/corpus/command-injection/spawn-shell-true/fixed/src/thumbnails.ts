import { spawn } from 'child_process';
import type { Request, Response } from 'express';

export function thumbnail(req: Request, res: Response) {
  const source = `/data/images/${req.params.image}`;
  const child = spawn('convert', [source, '-resize', '200x200', 'thumb.png'], { shell: false });
  child.on('close', (code) => res.status(code === 0 ? 201 : 500).end());
}
