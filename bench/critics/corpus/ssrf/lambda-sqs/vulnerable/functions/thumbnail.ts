import axios from 'axios';
import type { SQSEvent } from 'aws-lambda';

export const handler = async (event: SQSEvent) => {
  for (const record of event.Records) {
    const job = JSON.parse(record.body) as { source: string };
    const image = await axios.get(job.source, { responseType: 'arraybuffer' }); // VULN: ssrf
    console.log('fetched', image.data.byteLength);
  }
};
