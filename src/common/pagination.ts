import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

/** `page` and `limit` query parameters shared by every list endpoint. */
export class PageQuery {
  @ApiPropertyOptional({ minimum: 1, default: 1, example: 1 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  page: number = 1;

  @ApiPropertyOptional({ minimum: 1, maximum: 100, default: 20, example: 20 })
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(100)
  limit: number = 20;
}

/** `total`, `page` and `pages` of every paginated response; each list DTO extends it and adds its items. */
export class PageMetaDto {
  @ApiProperty({ example: 1, description: 'Items in all pages.' })
  total: number;

  @ApiProperty({ example: 1 })
  page: number;

  @ApiProperty({ example: 1, description: 'Number of pages; a page past the end is an empty list.' })
  pages: number;
}

export function pageOf<K extends string, T>(
  key: K,
  items: T[],
  total: number,
  query: { page: number; limit: number },
): { [P in K]: T[] } & { total: number; page: number; pages: number } {
  return {
    [key]: items,
    total,
    page: query.page,
    pages: Math.ceil(total / query.limit),
  } as { [P in K]: T[] } & { total: number; page: number; pages: number };
}

export function offsetOf(query: { page: number; limit: number }): number {
  return (query.page - 1) * query.limit;
}
