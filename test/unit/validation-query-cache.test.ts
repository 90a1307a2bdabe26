import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Max, Min } from 'class-validator';
import { DomainError } from '../../src/common/errors';
import { createValidationPipe } from '../../src/common/validation';

class PageQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(100) limit?: number;
  @IsOptional() @IsIn(['popular', 'newest']) sort?: string;
}

const asQuery = { type: 'query' as const, metatype: PageQuery, data: undefined };

describe('validation pipe: remembered query strings', () => {
  it('answers a repeated query with an equal DTO of the class, never the same object', async () => {
    const pipe = createValidationPipe();
    const first = (await pipe.transform({ limit: '20', sort: 'popular' }, asQuery)) as PageQuery;
    const second = (await pipe.transform({ limit: '20', sort: 'popular' }, asQuery)) as PageQuery;
    expect(second).toBeInstanceOf(PageQuery);
    expect(second).toEqual({ limit: 20, sort: 'popular' });
    expect(second).not.toBe(first);
    second.limit = 99; // a handler changing its DTO does not change what the next request gets
    expect(await pipe.transform({ limit: '20', sort: 'popular' }, asQuery)).toEqual({ limit: 20, sort: 'popular' });
  });

  it('refuses an invalid query every time, with the same field errors', async () => {
    const pipe = createValidationPipe();
    for (let i = 0; i < 2; i++) {
      const err = await pipe.transform({ limit: '0', extra: 'x' }, asQuery).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).details).toEqual(
        expect.arrayContaining([expect.objectContaining({ field: 'limit' }), expect.objectContaining({ field: 'extra' })]),
      );
    }
  });

  it('keys on the whole query: a different value is validated on its own', async () => {
    const pipe = createValidationPipe();
    await pipe.transform({ limit: '20' }, asQuery);
    await expect(pipe.transform({ limit: '200' }, asQuery)).rejects.toBeInstanceOf(DomainError);
    expect(await pipe.transform({ limit: '21' }, asQuery)).toEqual({ limit: 21 });
  });
});
