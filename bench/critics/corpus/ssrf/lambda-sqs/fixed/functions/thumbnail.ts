import axios from 'axios';
import type { SQSEvent } from 'aws-lambda';

export const handler = async (event: SQSEvent) => {
  for (const record of event.Records) {
    const job = JSON.parse(record.body) as { key: string };
    const image = await axios.get('https://uploads.example.com/' + encodeURIComponent(job.key), { responseType: 'arraybuffer' });
    console.log('fetched', image.data.byteLength);
  }
};
