import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import { PlanFeature } from '../auth/auth.decorators';
import { ApiErrors, ApiSuccess, KEYED_ERRORS } from '../common/swagger';
import { SearchRequestDto, SearchResponseDto } from './dto/search.dto';
import { SearchService } from './search.service';

const EXAMPLES = {
  filters: { summary: 'Level, price and duration in words', value: { query: 'free project management course for beginners under 10 hours', limit: 5 } },
  organisation: { summary: 'Organisation and synonym ("ML")', value: { query: 'ML from Stanford' } },
  typo: { summary: 'Misspelt', value: { query: 'javscript web dev' } },
  paraphrase: { summary: 'Said in other words', value: { query: 'how to manage my personal money' } },
};

@ApiTags('Search')
@PlanFeature('search')
@Controller('search')
export class SearchController {
  constructor(private readonly search: SearchService) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Natural-language course search',
    description:
      'Published courses only. Filters said in words are applied and shown in `interpreted`, e.g. ' +
      '"free project management course for beginners under 10 hours" → `{ level: "Beginner", max_credit_cost: 0, max_duration_hours: 10, text: "project management" }`; ' +
      '"ML from Stanford" → `{ organisation: "Stanford University", text: "machine learning" }`; "javscript web dev" → `{ corrections: { javscript: "javascript" }, text: "javascript web development" }`. ' +
      'The rest is ranked by weighted full text (title > category, topics, tutor, organisation > description) with synonyms and typo tolerance, ' +
      'fused with the hosted model when one is configured (`engine: "semantic"`); a slow or failing model falls back to `engine: "lexical"` within 1.5 s.',
  })
  @ApiBody({ type: SearchRequestDto, examples: EXAMPLES })
  @ApiSuccess(SearchResponseDto)
  @ApiErrors('validation_failed', 'invalid_json', 'unsupported_media_type', 'payload_too_large', ...KEYED_ERRORS)
  run(@Body() body: SearchRequestDto): Promise<SearchResponseDto> {
    return this.search.search(body.query, body.limit);
  }
}
