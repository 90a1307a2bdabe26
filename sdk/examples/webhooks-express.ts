import express from 'express';
import { webhooks, WebhookVerificationError } from '@partner-api/sdk';

const secret = process.env.WEBHOOK_SECRET ?? ''; // the secret you gave when subscribing
const app = express();

// The signatures cover the exact bytes sent: take the body raw here, and parse it only through verify().
app.post('/webhooks/partner-api', express.raw({ type: 'application/json' }), (req, res) => {
  let event;
  try {
    event = webhooks.verify(req.body as Buffer, req.headers, secret);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return void res.status(400).send(err.message);
    throw err;
  }
  switch (event.event) {
    case 'course.enrolled':
      console.log(`enrolled: ${event.data.external_user_id} in ${event.data.course_title}`);
      break;
    case 'user.registered':
      console.log(`registered: ${event.data.external_user_id} (${event.webhook_id})`);
      break;
    default:
      console.log(`${event.event} (${event.webhook_id})`);
  }
  res.sendStatus(204); // any 2xx acknowledges; deliveries may repeat, so drop a webhook_id you have seen
});

const server = app.listen(Number(process.env.PORT ?? 4000), () => console.log('listening'));
process.on('SIGTERM', () => server.close());
