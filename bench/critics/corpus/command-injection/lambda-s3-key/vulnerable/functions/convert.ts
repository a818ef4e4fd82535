import { execSync } from 'node:child_process';
import type { S3Event } from 'aws-lambda';

export const handler = async (event: S3Event) => {
  for (const record of event.Records) {
    const key = decodeURIComponent(record.s3.object.key.replace(/\+/g, ' '));
    execSync(`ffmpeg -i /tmp/${key} /tmp/out.mp4`); // VULN: command-injection
  }
};
