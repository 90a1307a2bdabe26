import { ApiProperty } from '@nestjs/swagger';
import { LEVELS } from '../course-level';
import { PageMetaDto } from '../../common/pagination';

export class TutorSummaryDto {
  @ApiProperty({ example: 'Andrew Ng' })
  name: string;

  @ApiProperty({ example: 'http://localhost:3000/static/avatars/12.svg', format: 'uri' })
  avatar: string;
}

export class CourseListItemDto {
  @ApiProperty({ example: 42 })
  id: number;

  @ApiProperty({ example: 'Machine Learning' })
  title: string;

  @ApiProperty({ example: 'Data Science' })
  category: string;

  @ApiProperty({ enum: LEVELS, example: 'Beginner' })
  level: string;

  @ApiProperty({ example: '54h', description: 'Whole hours "<n>h"; under an hour "<n>m".' })
  duration: string;

  @ApiProperty({ example: 4.9, description: 'One decimal.' })
  rating: number;

  @ApiProperty({ example: 3200000 })
  enrolled: number;

  @ApiProperty({ example: 50 })
  credit_cost: number;

  @ApiProperty({ example: 'http://localhost:3000/static/thumbnails/42.svg' })
  thumbnail_url: string;

  @ApiProperty({ type: TutorSummaryDto })
  tutor: TutorSummaryDto;
}

export class CourseListDto extends PageMetaDto {
  @ApiProperty({ type: [CourseListItemDto] })
  courses: CourseListItemDto[];
}

export class TopicDto {
  @ApiProperty({ example: 311 })
  id: number;

  @ApiProperty({ example: 'Introduction to supervised learning' })
  title: string;

  @ApiProperty({ example: '1h 20m', description: '"<n>m" or "<h>h <m>m".' })
  duration: string;

  @ApiProperty({ example: true })
  has_quiz: boolean;
}

export class TutorDetailDto {
  @ApiProperty({ example: 12 })
  id: number;

  @ApiProperty({ example: 'Andrew Ng' })
  name: string;

  @ApiProperty({ example: 'Instructor at Stanford University.' })
  bio: string;
}

export class PreviewDto {
  @ApiProperty({ example: 'http://localhost:3000/preview/courses/42' })
  video_url: string;

  @ApiProperty({ type: [Number], example: [311], description: 'Topics free to preview before enrolling.' })
  topic_ids: number[];
}

export class CourseDetailDto {
  @ApiProperty({ example: 42 })
  id: number;

  @ApiProperty({ example: 'Machine Learning' })
  title: string;

  @ApiProperty({ example: 'Machine learning is the science of getting computers to act without being explicitly programmed.' })
  description: string;

  @ApiProperty({ example: 'Data Science' })
  category: string;

  @ApiProperty({ enum: LEVELS, example: 'Beginner' })
  level: string;

  @ApiProperty({ example: 4.9 })
  rating: number;

  @ApiProperty({ example: 'http://localhost:3000/static/thumbnails/42.svg' })
  thumbnail_url: string;

  @ApiProperty({ type: [TopicDto] })
  topics: TopicDto[];

  @ApiProperty({ type: TutorDetailDto })
  tutor: TutorDetailDto;

  @ApiProperty({ example: 50 })
  credit_cost: number;

  @ApiProperty({ example: 3200000 })
  enrolled: number;

  @ApiProperty({ type: PreviewDto })
  preview: PreviewDto;
}
