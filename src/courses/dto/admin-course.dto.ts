import { ApiProperty, ApiPropertyOptional, OmitType, PartialType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNumber,
  IsOptional,
  IsString,
  IsUrl,
  Length,
  Max,
  Min,
  ValidateNested,
} from 'class-validator';
import { trimString } from '../../common/text';
import { Level, LEVELS } from '../course-level';
import { CourseDetailDto } from './course.dto';
import { MAX_INT_ID } from '../../common/params';

const URL_RULE = { protocols: ['http', 'https'], require_protocol: true };
const MAX_TOPICS = 200;

export class TopicInputDto {
  @ApiProperty({ example: 'Introduction to supervised learning', minLength: 1, maxLength: 300 })
  @Transform(trimString)
  @IsString()
  @Length(1, 300)
  title: string;

  @ApiProperty({ example: 80, minimum: 1, maximum: 10000 })
  @IsInt()
  @Min(1)
  @Max(10_000)
  duration_minutes: number;

  @ApiPropertyOptional({ example: true, default: false })
  @IsOptional()
  @IsBoolean()
  has_quiz?: boolean;

  @ApiPropertyOptional({ example: false, default: false, description: 'Free to preview before enrolling.' })
  @IsOptional()
  @IsBoolean()
  is_preview?: boolean;
}

export class NewTutorDto {
  @ApiProperty({ example: 'Ada Lovelace', minLength: 1, maxLength: 200 })
  @Transform(trimString)
  @IsString()
  @Length(1, 200)
  name: string;

  @ApiProperty({ example: 'Mathematician and the first programmer.', maxLength: 5000 })
  @Transform(trimString)
  @IsString()
  @Length(0, 5000)
  bio: string;

  @ApiPropertyOptional({ example: 'https://cdn.example.com/ada.png', description: 'Omit to use the generated avatar.' })
  @IsOptional()
  @IsUrl(URL_RULE, { message: 'tutor.avatar_url must be an http(s) URL' })
  @Length(1, 2048)
  avatar_url?: string;

  @ApiPropertyOptional({ example: 'Analytical Engine Society', maxLength: 200 })
  @IsOptional()
  @Transform(trimString)
  @IsString()
  @Length(1, 200)
  organisation?: string;
}

/** A new course with its tutor and topics. */
export class CreateCourseDto {
  @ApiProperty({ example: 'Python for Data Analysis', minLength: 1, maxLength: 300 })
  @Transform(trimString)
  @IsString()
  @Length(1, 300)
  title: string;

  @ApiPropertyOptional({ example: 'Load, clean and explore data with pandas.', maxLength: 10000 })
  @IsOptional()
  @Transform(trimString)
  @IsString()
  @Length(0, 10_000)
  description?: string;

  @ApiProperty({ example: 'Data Science', minLength: 1, maxLength: 100 })
  @Transform(trimString)
  @IsString()
  @Length(1, 100)
  category: string;

  @ApiProperty({ enum: LEVELS, example: 'Beginner' })
  @IsIn(LEVELS, { message: `level must be one of ${LEVELS.join(', ')}` })
  level: Level;

  @ApiProperty({ example: 30, minimum: 0, maximum: 1000000 })
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  credit_cost: number;

  @ApiPropertyOptional({ example: 4.6, minimum: 0, maximum: 5, description: 'One decimal; default 0.' })
  @IsOptional()
  @IsNumber({ maxDecimalPlaces: 1, allowNaN: false, allowInfinity: false }, { message: 'rating must be a number with at most one decimal' })
  @Min(0)
  @Max(5)
  rating?: number;

  @ApiPropertyOptional({ type: String, example: null, nullable: true, description: 'null or omitted: the generated thumbnail.' })
  @IsOptional()
  @IsUrl(URL_RULE, { message: 'thumbnail_url must be an http(s) URL' })
  @Length(1, 2048)
  thumbnail_url?: string | null;

  @ApiPropertyOptional({ type: String, example: null, nullable: true, description: 'null or omitted: the generated preview page.' })
  @IsOptional()
  @IsUrl(URL_RULE, { message: 'preview_video_url must be an http(s) URL' })
  @Length(1, 2048)
  preview_video_url?: string | null;

  @ApiPropertyOptional({ example: 12, description: 'An existing tutor; or give `tutor` to create one (not both).' })
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_INT_ID)
  tutor_id?: number;

  @ApiPropertyOptional({ type: NewTutorDto, description: 'A new tutor; or give `tutor_id` (not both).' })
  @IsOptional()
  @ValidateNested()
  @Type(() => NewTutorDto)
  tutor?: NewTutorDto;

  @ApiProperty({ type: [TopicInputDto], description: 'In order. On update, replaces every topic (ids are kept by position).' })
  @IsArray()
  @ArrayMinSize(1, { message: 'topics must hold at least 1 topic' })
  @ArrayMaxSize(MAX_TOPICS)
  @ValidateNested({ each: true })
  @Type(() => TopicInputDto)
  topics: TopicInputDto[];

  @ApiPropertyOptional({ example: false, default: false, description: 'Courses are created unpublished unless this is true.' })
  @IsOptional()
  @IsBoolean()
  published?: boolean;
}

/** Any subset of the fields (null only for the two URLs); `topics`, when given, replaces every topic. */
export class UpdateCourseDto extends PartialType(OmitType(CreateCourseDto, ['published'] as const)) {}

export class AdminCourseDto extends CourseDetailDto {
  @ApiProperty({ example: false, description: 'Only published courses are visible to partners.' })
  published: boolean;

  @ApiProperty({ example: '3h', description: 'Sum of the topic durations, as in the list.' })
  duration: string;

  @ApiProperty({ example: 'Analytical Engine Society', nullable: true, type: String })
  organisation: string | null;

  @ApiProperty({ example: '2025-01-31T09:00:00.000Z' })
  updated_at: string;
}
