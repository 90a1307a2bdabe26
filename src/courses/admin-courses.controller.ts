import { Body, Controller, Get, HttpCode, Param, Patch, Post } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AdminOnly, LiveAdminOnly } from '../auth/auth.decorators';
import { DomainError } from '../common/errors';
import { intIdParam, MAX_INT_ID } from '../common/params';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { AdminCoursesService } from './admin-courses.service';
import { AdminCourseDto, CreateCourseDto, UpdateCourseDto } from './dto/admin-course.dto';

const ADMIN_ERRORS = ['admin_only', ...KEYED_ERRORS] as const;
const courseId = intIdParam('id', { notFound: 'course_not_found' });

@ApiTags('Admin')
@AdminOnly()
@Controller('admin/courses')
export class AdminCoursesController {
  constructor(private readonly courses: AdminCoursesService) {}

  @Post()
  @LiveAdminOnly()
  @ApiOperation({
    summary: 'Create a course with its tutor and topics',
    description: 'Unpublished unless `published: true`. The course duration is the sum of its topics.',
  })
  @ApiSuccess(AdminCourseDto, { status: 201 })
  @ApiErrors('validation_failed', ...ADMIN_ERRORS)
  create(@Body() dto: CreateCourseDto): Promise<AdminCourseDto> {
    return this.courses.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: "Any course's detail, published or not" })
  @ApiParam({ name: 'id', type: Number, example: 1 })
  @ApiSuccess(AdminCourseDto)
  @ApiErrors('validation_failed', 'course_not_found', ...ADMIN_ERRORS)
  get(@Param('id', courseId) id: number): Promise<AdminCourseDto> {
    return this.courses.get(id);
  }

  @Patch(':id')
  @LiveAdminOnly()
  @ApiOperation({
    summary: 'Change any field of a course',
    description: '`topics`, when given, replaces every topic in order; topic ids are kept by position and topics past the new count are removed.',
  })
  @ApiParam({ name: 'id', type: Number, example: 1 })
  @ApiSuccess(AdminCourseDto)
  @ApiErrors('validation_failed', 'course_not_found', ...ADMIN_ERRORS)
  update(@Param('id', intIdParam()) id: number, @Body() dto: UpdateCourseDto): Promise<AdminCourseDto> {
    // Checked after the body: a bad body is 400 whatever the id.
    if (id < 1 || id > MAX_INT_ID) throw new DomainError('course_not_found');
    return this.courses.update(id, dto);
  }

  @Post(':id/publish')
  @LiveAdminOnly()
  @HttpCode(200)
  @ApiOperation({ summary: 'Publish a course: partners see it at once' })
  @ApiParam({ name: 'id', type: Number, example: 1 })
  @ApiSuccess(AdminCourseDto)
  @ApiErrors('validation_failed', 'course_not_found', ...ADMIN_ERRORS)
  publish(@Param('id', courseId) id: number): Promise<AdminCourseDto> {
    return this.courses.setPublished(id, true);
  }

  @Post(':id/unpublish')
  @LiveAdminOnly()
  @HttpCode(200)
  @ApiOperation({ summary: 'Unpublish a course: it disappears from partners’ lists and details at once (404)' })
  @ApiParam({ name: 'id', type: Number, example: 1 })
  @ApiSuccess(AdminCourseDto)
  @ApiErrors('validation_failed', 'course_not_found', ...ADMIN_ERRORS)
  unpublish(@Param('id', courseId) id: number): Promise<AdminCourseDto> {
    return this.courses.setPublished(id, false);
  }
}
