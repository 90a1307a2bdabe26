import { createServer } from 'node:http';
import { webhooks, WebhookVerificationError } from '@partner-api/sdk';

const secret = process.env.WEBHOOK_SECRET ?? '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = webhooks.verify(Buffer.concat(chunks), req.headers, secret, { toleranceSeconds: 300 });
      if (event.event === 'user.registered') console.log(`registered: ${event.data.external_user_id} (${event.webhook_id})`);
      else console.log(`${event.event} (${event.webhook_id})`);
      res.writeHead(204).end();
    } catch (err) {
      res.writeHead(err instanceof WebhookVerificationError ? 400 : 500).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 4000), () => console.log('listening'));
process.on('SIGTERM', () => server.close());
