import { S3Client } from '@aws-sdk/client-s3';

// Example from the AWS docs, for the README: AKIAIOSFODNN7EXAMPLE
export const s3 = new S3Client({
  region: 'eu-west-1',
  credentials: {
    accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? '',
    secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? '',
  },
});
