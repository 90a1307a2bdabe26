import { Body, Controller, Get, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { Auth, AuthContext, CurrentScope } from '../auth/auth-context';
import { PlanFeature } from '../auth/auth.decorators';
import { Public } from '../auth/public.decorator';
import { prefixedIdParam } from '../common/params';
import type { Scope } from '../common/scope';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { UserRefDto } from '../users/dto/user.dto';
import { AttendanceService } from './attendance.service';
import { AttendanceDto, AttendeeListDto, ListAttendeesQuery } from './dto/attendee.dto';
import { CreateWebinarDto } from './dto/create-webinar.dto';
import { ListWebinarsQuery, PublicWebinarsQuery } from './dto/list-webinars.query';
import { CreatedWebinarDto, EndedWebinarDto, PublicWebinarListDto, WebinarDto, WebinarListDto } from './dto/webinar.dto';
import { WebinarsService } from './webinars.service';

/** Routes with no body or query to validate; the others leave the id to WebinarsService.find (a bad body or query is 400 whatever the id). */
const webinarId = prefixedIdParam('wbn', 'webinar_not_found', 22);
const WebinarId = () => ApiParam({ name: 'id', type: String, example: 'wbn_4fJ9kQ2xT7mN1pR8sV3wYz' });

@ApiTags('Webinars')
@PlanFeature('webinars')
@Controller('webinars')
export class WebinarsController {
  constructor(
    private readonly webinars: WebinarsService,
    private readonly attendance: AttendanceService,
  ) {}

  @Post('create')
  @ApiOperation({
    summary: 'Schedule a webinar',
    description: "Returns the host join URL (with its token) once. Counts against the plan's rooms open at once (webinars not ended).",
  })
  @ApiSuccess(CreatedWebinarDto, { status: 201 })
  @ApiErrors('validation_failed', 'invalid_json', 'user_not_found', 'plan_limit_exceeded', ...KEYED_ERRORS)
  create(@Auth() auth: AuthContext, @Body() dto: CreateWebinarDto): Promise<CreatedWebinarDto> {
    return this.webinars.create(auth, dto);
  }

  @Get('public')
  @Public()
  @ApiOperation({ summary: 'Upcoming and live public webinars of all partners (no key)', description: 'Safe fields only: no host or personal links.' })
  @ApiSuccess(PublicWebinarListDto)
  @ApiErrors('validation_failed', 'service_unavailable')
  listPublic(@Query() query: PublicWebinarsQuery) {
    return this.webinars.listPublic(query);
  }

  @Get()
  @ApiOperation({ summary: 'List your webinars', description: 'Newest scheduled time first; filter by status.' })
  @ApiSuccess(WebinarListDto)
  @ApiErrors('validation_failed', ...KEYED_ERRORS)
  list(@CurrentScope() scope: Scope, @Query() query: ListWebinarsQuery) {
    return this.webinars.list(scope, query);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One webinar' })
  @WebinarId()
  @ApiSuccess(WebinarDto)
  @ApiErrors('webinar_not_found', ...KEYED_ERRORS)
  get(@CurrentScope() scope: Scope, @Param('id', webinarId) id: string): Promise<WebinarDto> {
    return this.webinars.get(scope, id);
  }

  @Post(':id/start')
  @HttpCode(200)
  @ApiOperation({ summary: 'Go live', description: 'scheduled → live; emits webinar.started.' })
  @WebinarId()
  @ApiSuccess(WebinarDto)
  @ApiErrors('webinar_not_found', 'webinar_already_live', 'webinar_ended', ...KEYED_ERRORS)
  start(@CurrentScope() scope: Scope, @Param('id', webinarId) id: string): Promise<WebinarDto> {
    return this.webinars.start(scope, id);
  }

  @Post(':id/register')
  @ApiOperation({
    summary: 'Register a user',
    description:
      "201 with the attendee's personal join_url; registering again is 200 with the same link and no new seat. A registration holds a seat (max_attendees).",
  })
  @WebinarId()
  @ApiSuccess(AttendanceDto, { status: 201, description: 'Registered: a seat is held.' })
  @ApiSuccess(AttendanceDto, { status: 200, description: 'Already registered: the same join link, no new seat.' })
  @ApiErrors('validation_failed', 'invalid_json', 'webinar_not_found', 'user_not_found', 'webinar_full', 'webinar_ended', ...KEYED_ERRORS)
  async register(
    @CurrentScope() scope: Scope,
    @Param('id') id: string,
    @Body() dto: UserRefDto,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AttendanceDto> {
    const { created, attendance } = await this.attendance.register(scope, id, dto);
    res.status(created ? 201 : 200);
    return attendance;
  }

  @Post(':id/join')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Record that a user joins the live session',
    description: 'Needs live. Takes a seat unless the user is registered; joining again takes none. Every join emits webinar.joined.',
  })
  @WebinarId()
  @ApiSuccess(AttendanceDto)
  @ApiErrors('validation_failed', 'invalid_json', 'webinar_not_found', 'user_not_found', 'webinar_not_live', 'webinar_ended', 'webinar_full', ...KEYED_ERRORS)
  join(@CurrentScope() scope: Scope, @Param('id') id: string, @Body() dto: UserRefDto): Promise<AttendanceDto> {
    return this.attendance.join(scope, id, dto);
  }

  @Get(':id/attendees')
  @ApiOperation({ summary: 'Registered and joined attendees', description: 'In registration order; paginated.' })
  @WebinarId()
  @ApiSuccess(AttendeeListDto)
  @ApiErrors('validation_failed', 'webinar_not_found', ...KEYED_ERRORS)
  attendees(@CurrentScope() scope: Scope, @Param('id') id: string, @Query() query: ListAttendeesQuery): Promise<AttendeeListDto> {
    return this.attendance.list(scope, id, query);
  }

  @Post(':id/end')
  @HttpCode(200)
  @ApiOperation({ summary: 'End the live session', description: 'live → ended; actual duration and distinct attendance; emits webinar.ended.' })
  @WebinarId()
  @ApiSuccess(EndedWebinarDto)
  @ApiErrors('webinar_not_found', 'webinar_not_live', 'webinar_ended', ...KEYED_ERRORS)
  end(@CurrentScope() scope: Scope, @Param('id', webinarId) id: string): Promise<EndedWebinarDto> {
    return this.webinars.end(scope, id);
  }
}
