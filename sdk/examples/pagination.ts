import { PartnerApi } from '@partner-api/sdk';

const api = new PartnerApi({ apiKey: process.env.PARTNER_API_KEY ?? '', baseUrl: process.env.PARTNER_API_URL ?? '' });

async function main(): Promise<void> {
  // Any paginated list: the query takes the list's own filters; `limit` sets the page size (default 100 here).
  const emails: string[] = [];
  for await (const user of api.paginate('/api/users', { params: { query: { limit: 50 } } })) emails.push(user.email);
  console.log(`learners: ${emails.length}`);

  // A list under a path parameter takes it the same way.
  const { data: learner } = await api.users.getByExternalId('acme-user-2002');
  for await (const txn of api.paginate('/api/credits/transactions/{user_id}', { params: { path: { user_id: learner.id } } })) {
    console.log(`${txn.created_at} ${txn.amount}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
