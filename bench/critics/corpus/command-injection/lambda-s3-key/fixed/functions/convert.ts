import { execFileSync } from 'node:child_process';
import { basename } from 'node:path';
import type { S3Event } from 'aws-lambda';

export const handler = async (event: S3Event) => {
  for (const record of event.Records) {
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    execFileSync('ffmpeg', ['-i', `/tmp/${basename(key)}`, '/tmp/out.mp4']);
  }
};
