import { Controller, Get, Param, ParseIntPipe, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { PlanFeature } from '../auth/auth.decorators';
import { DomainError } from '../common/errors';
import { SerializedBody } from '../common/serialized-body';
import { ApiConditional, ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CoursesService } from './courses.service';
import { CourseDetailDto, CourseListDto } from './dto/course.dto';
import { ListCoursesQuery } from './dto/list-courses.query';

export const courseIdPipe = new ParseIntPipe({
  exceptionFactory: () => new DomainError('validation_failed', [{ field: 'id', message: 'id must be a positive integer' }]),
});

@ApiTags('Courses')
@PlanFeature('catalogue')
@Controller('courses')
export class CoursesController {
  constructor(private readonly courses: CoursesService) {}

  @Get()
  @ApiOperation({
    summary: 'List published courses',
    description: 'Filter by category (case-insensitive exact match) and level; paginated; sorted by popularity unless `sort` says otherwise.',
  })
  @ApiSuccess(CourseListDto)
  @ApiErrors('validation_failed', ...KEYED_ERRORS)
  @ApiConditional()
  list(@Query() query: ListCoursesQuery): Promise<SerializedBody<CourseListDto>> {
    return this.courses.list(query);
  }

  @Get(':id')
  @ApiOperation({
    summary: "One published course's detail",
    description: 'Topics in order, tutor, and the preview (video URL and the topics free to preview).',
  })
  @ApiParam({ name: 'id', type: Number, example: 1 })
  @ApiSuccess(CourseDetailDto)
  @ApiErrors('validation_failed', 'course_not_found', ...KEYED_ERRORS)
  @ApiConditional()
  get(@Param('id', courseIdPipe) id: number): Promise<SerializedBody<CourseDetailDto>> {
    if (id < 1 || id > 2_147_483_647) throw new DomainError('course_not_found');
    return this.courses.detail(id);
  }
}
