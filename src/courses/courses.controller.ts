import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { PlanFeature } from '../auth/auth.decorators';
import { intIdParam } from '../common/params';
import { SerializedBody } from '../common/serialized-body';
import { ApiConditional, ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { CoursesService } from './courses.service';
import { CourseDetailDto, CourseListDto } from './dto/course.dto';
import { ListCoursesQuery } from './dto/list-courses.query';

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
  get(@Param('id', intIdParam('id', { notFound: 'course_not_found' })) id: number): Promise<SerializedBody<CourseDetailDto>> {
    return this.courses.detail(id);
  }
}
