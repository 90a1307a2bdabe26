import { PartnerApi, PartnerApiError } from '@partner-api/sdk';

const api = new PartnerApi({ apiKey: process.env.PARTNER_API_KEY ?? '', baseUrl: process.env.PARTNER_API_URL ?? '' });

async function main(): Promise<void> {
  try {
    await api.enrollments.create({ external_user_id: 'nobody-by-this-id', course_id: 1 });
  } catch (err) {
    if (!(err instanceof PartnerApiError)) throw err;
    // status: the HTTP status (0 when no answer came); code: the stable code to branch on; requestId: quote it to support.
    console.log(`${err.status} ${err.code}: ${err.message} (request ${err.requestId})`);
    if (err.code === 'insufficient_credits') console.log(err.details); // { required, available }
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
