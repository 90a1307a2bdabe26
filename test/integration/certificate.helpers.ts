import { TestApp } from '../support/app';
import { createCourse, CreatedPartner, unique } from '../support/factories';

export interface IssuedCertificate {
  certificateId: string;
  userId: number;
  courseId: number;
  holderName: string;
  email: string;
  externalUserId: string;
  courseTitle: string;
  issuedAt: string;
  verifyUrl: string;
}

/** A learner named `name` completes a one-topic course through the API, which issues the certificate. */
export async function issueCertificate(t: TestApp, partner: CreatedPartner, spec: { name?: string; courseTitle?: string } = {}): Promise<IssuedCertificate> {
  const { course, topics } = await createCourse(t.db, { topics: [false], title: spec.courseTitle ?? unique('Data Science') });
  const holderName = spec.name ?? `Ada ${unique('Lovelace')}`;
  const email = `${unique('ada')}@example.com`;
  const externalUserId = unique('ext');
  const user = await partner.http.post('/api/users', { external_user_id: externalUserId, name: holderName, email });
  if (user.status !== 201) throw new Error(`user: ${user.status} ${user.text}`);
  const enrolled = await partner.http.post('/api/enroll', { user_id: user.body.data.id, course_id: course.id, deduct_credits: false });
  if (enrolled.status !== 201) throw new Error(`enrol: ${enrolled.status} ${enrolled.text}`);
  const done = await partner.http.post(`/api/enrollments/${enrolled.body.data.enrollment_id}/progress`, { topic_id: topics[0].id });
  if (done.status !== 200 || !done.body.data.certificate_id) throw new Error(`progress: ${done.status} ${done.text}`);
  const certificateId: string = done.body.data.certificate_id;
  return {
    certificateId,
    userId: user.body.data.id,
    courseId: course.id,
    holderName,
    email,
    externalUserId,
    courseTitle: course.title,
    issuedAt: (done.body.data.completed_at as string).slice(0, 10),
    verifyUrl: `${t.config.publicBaseUrl}/verify/${certificateId}`,
  };
}

/** A fresh client address per call under `prefix` (e.g. "203.0"), so each request has its own per-IP limit (TRUST_PROXY=1). */
export function clientIps(prefix: string): () => string {
  let counter = 0;
  return () => {
    counter += 1;
    return `${prefix}.${Math.floor(Math.random() * 250)}.${counter % 250}`;
  };
}
