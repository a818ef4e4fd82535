const WEBHOOK = process.env.SLACK_WEBHOOK_URL ?? '';

export async function notify(text: string): Promise<void> {
  if (WEBHOOK === '') return;
  await fetch(WEBHOOK, { method: 'POST', body: JSON.stringify({ text }) });
}
