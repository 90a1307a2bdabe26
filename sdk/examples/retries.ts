import { PartnerApi } from '@partner-api/sdk';

const api = new PartnerApi({ apiKey: process.env.PARTNER_API_KEY ?? '', baseUrl: process.env.PARTNER_API_URL ?? '' });

async function main(): Promise<void> {
  const { data: learner } = await api.users.upsertByExternalId('acme-user-2002', { name: 'Grace Hopper', email: 'grace@example.com' });

  // Your own key ties the call to your order: the same key from a later run (a crash, a redeploy) answers the first
  // result instead of crediting again. Without one, the SDK makes a key per call and reuses it on that call's retries.
  const key = `topup-acme-order-2002`;
  const first = await api.credits.topUp({ user_id: learner.id, amount: 50 }, { idempotencyKey: key });
  const again = await api.credits.topUp({ user_id: learner.id, amount: 50 }, { idempotencyKey: key });
  console.log(`same transaction: ${first.data.transaction_id === again.data.transaction_id}, replayed: ${again.idempotentReplayed}`);

  // Every operation of the document is a typed call by its path; the methods above are shortcuts for the common ones.
  const { data: balance, requestId, attempts } = await api.get('/api/credits/balance/{user_id}', { params: { path: { user_id: learner.id } } });
  console.log(`balance: ${balance.credits} (request ${requestId}, ${attempts} attempt)`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
