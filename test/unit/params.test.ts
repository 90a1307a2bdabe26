import type { ArgumentMetadata } from '@nestjs/common';
import { DomainError } from '../../src/common/errors';
import { intIdParam, MAX_INT_ID, prefixedIdParam, prefixedIdShape } from '../../src/common/params';

const META: ArgumentMetadata = { type: 'param', data: 'id' };

/** What the pipe threw, as the error envelope would name it. */
function refusal(run: () => unknown): { code: string; details?: unknown } | undefined {
  try {
    run();
    return undefined;
  } catch (e) {
    if (!(e instanceof DomainError)) throw e;
    return e.details === undefined ? { code: e.code } : { code: e.code, details: e.details };
  }
}

describe('intIdParam', () => {
  const pipe = intIdParam();

  it('passes integers on as numbers, from the path segment or from the global pipe that made it a number', () => {
    expect(pipe.transform('42', META)).toBe(42);
    expect(pipe.transform(42, META)).toBe(42);
    expect(pipe.transform('007', META)).toBe(7);
    // `1e3` reaches the pipe as 1000 (the global ValidationPipe turns a number-typed param into a number first).
    expect(pipe.transform(1000, META)).toBe(1000);
  });

  it('answers 400 validation_failed naming the field for anything that is not an integer', () => {
    for (const value of ['abc', '1.5', '', ' ', '1e3', 'Infinity', NaN, 1.5, Infinity, undefined, null, {}]) {
      expect(refusal(() => pipe.transform(value, META))).toEqual({
        code: 'validation_failed',
        details: [{ field: 'id', message: 'id must be a positive integer' }],
      });
    }
    expect(refusal(() => intIdParam('user_id').transform('x', META))).toEqual({
      code: 'validation_failed',
      details: [{ field: 'user_id', message: 'user_id must be a positive integer' }],
    });
    expect(refusal(() => intIdParam('id', { message: 'id must be a partner id (integer)' }).transform('x', META))).toMatchObject({
      details: [{ field: 'id', message: 'id must be a partner id (integer)' }],
    });
  });

  it('leaves integers out of range to the service unless told which 404 they get', () => {
    expect(pipe.transform('0', META)).toBe(0);
    expect(pipe.transform('-1', META)).toBe(-1);
    expect(pipe.transform(String(MAX_INT_ID + 1), META)).toBe(MAX_INT_ID + 1);
    const courses = intIdParam('id', { notFound: 'course_not_found' });
    for (const value of ['0', '-1', String(MAX_INT_ID + 1), '99999999999999999999']) {
      expect(refusal(() => courses.transform(value, META))).toEqual({ code: 'course_not_found' });
    }
    expect(courses.transform(String(MAX_INT_ID), META)).toBe(MAX_INT_ID);
    expect(courses.transform('1', META)).toBe(1);
  });
});

describe('prefixedIdParam', () => {
  it('passes a well-formed id on unchanged', () => {
    expect(prefixedIdParam('whk', 'webhook_not_found').transform('whk_4f9TzQe1LmN8pR2sV6xY0a', META)).toBe('whk_4f9TzQe1LmN8pR2sV6xY0a');
    expect(prefixedIdParam('key', 'api_key_not_found').transform('key_a', META)).toBe('key_a');
  });

  it("answers the resource's 404 for a malformed id, as an unknown one gets", () => {
    const pipe = prefixedIdParam('whk', 'webhook_not_found');
    for (const value of ['whk_', 'whd_4f9TzQe1LmN8pR2sV6xY0a', 'WHK_4f9TzQe1LmN8pR2sV6xY0a', 'whk_a-b', `whk_${'a'.repeat(37)}`, 'whk_a\n', 42, undefined]) {
      expect(refusal(() => pipe.transform(value, META))).toEqual({ code: 'webhook_not_found' });
    }
  });

  it('holds ids to an exact length when given one', () => {
    const pipe = prefixedIdParam('wbn', 'webinar_not_found', 22);
    expect(pipe.transform(`wbn_${'A'.repeat(22)}`, META)).toBe(`wbn_${'A'.repeat(22)}`);
    for (const value of [`wbn_${'A'.repeat(21)}`, `wbn_${'A'.repeat(23)}`]) {
      expect(refusal(() => pipe.transform(value, META))).toEqual({ code: 'webinar_not_found' });
    }
    expect(prefixedIdShape('job', 22).test(`job_${'z'.repeat(22)}`)).toBe(true);
  });
});
