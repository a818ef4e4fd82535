const WEBHOOK = 'https://hooks.slack.com/services/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'; // VULN: secret

export async function notify(text: string): Promise<void> {
  await fetch(WEBHOOK, { method: 'POST', body: JSON.stringify({ text }) });
}
