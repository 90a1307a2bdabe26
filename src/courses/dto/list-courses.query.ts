import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { PageQuery } from '../../common/pagination';
import { trimString } from '../../common/text';
import { Level, LEVELS } from '../course-level';

export const COURSE_SORTS = ['popular', 'rating', 'newest', 'title'] as const;
export type CourseSort = (typeof COURSE_SORTS)[number];

export class ListCoursesQuery extends PageQuery {
  @ApiPropertyOptional({ description: 'Category name, matched case-insensitively and exactly.', example: 'Computer Science' })
  @IsOptional()
  @IsString()
  @Transform(trimString)
  @Length(1, 100)
  // eslint-disable-next-line no-control-regex -- matching NUL is the point: PostgreSQL text cannot hold it
  @Matches(/^[^\u0000]*$/, { message: 'category must not contain NUL characters' })
  category?: string;

  @ApiPropertyOptional({ enum: LEVELS, example: 'Beginner' })
  @IsOptional()
  @IsIn(LEVELS, { message: `level must be one of ${LEVELS.join(', ')}` })
  level?: Level;

  @ApiPropertyOptional({
    enum: COURSE_SORTS,
    default: 'popular',
    description: 'popular: most enrolled first; rating: best rated first; newest: latest added first; title: A–Z.',
  })
  @IsOptional()
  @IsIn(COURSE_SORTS, { message: `sort must be one of ${COURSE_SORTS.join(', ')}` })
  sort: CourseSort = 'popular';
}
