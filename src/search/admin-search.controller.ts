import { Controller, Get } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { AdminOnly } from '../auth/auth.decorators';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { SearchIndexDto } from './dto/search.dto';
import { SearchService } from './search.service';

@ApiTags('Admin')
@AdminOnly()
@Controller('admin/search')
export class AdminSearchController {
  constructor(private readonly search: SearchService) {}

  @Get('index')
  @ApiOperation({
    summary: "Progress of the sentence encoder's course vectors",
    description:
      'Course vectors are computed in the background when courses are loaded or change, and kept in the database keyed by the text they were ' +
      'computed from, so unchanged courses are never computed again. Searches never wait for them: a `pending` course is ranked without its vector.',
  })
  @ApiSuccess(SearchIndexDto)
  @ApiErrors('admin_only', ...KEYED_ERRORS)
  index(): Promise<SearchIndexDto> {
    return this.search.indexStatus();
  }
}
