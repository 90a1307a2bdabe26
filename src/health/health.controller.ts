import { Controller, Get, HttpStatus, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiServiceUnavailableResponse, ApiTags } from '@nestjs/swagger';
import type { SchemaObject } from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Response } from 'express';
import { DataSource } from 'typeorm';
import { sql } from '../common/database';
import { RawResponse } from '../common/envelope.interceptor';
import { Public } from '../auth/public.decorator';
import { RedisService } from '../redis/redis.service';

const CHECK_TIMEOUT_MS = 1500;

type CheckResult = { status: 'up' } | { status: 'down'; error: string };

async function check(probe: () => Promise<unknown>): Promise<CheckResult> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
      }),
    ]);
    return { status: 'up' };
  } catch (e) {
    return { status: 'down', error: e instanceof Error ? e.message.split('\n')[0].slice(0, 200) : 'unreachable' };
  } finally {
    clearTimeout(timer);
  }
}

const CHECK_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['up', 'down'] }, error: { type: 'string', description: 'Why the check failed (only when down).' } },
};

const READINESS_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['status', 'checks'],
  properties: {
    status: { type: 'string', enum: ['ok', 'error'] },
    checks: { type: 'object', required: ['postgres', 'redis'], properties: { postgres: CHECK_SCHEMA, redis: CHECK_SCHEMA } },
  },
};

@ApiTags('Health')
@Public()
@RawResponse()
@Controller('health')
export class HealthController {
  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly redis: RedisService,
  ) {}

  @Get('live')
  @ApiOperation({ summary: 'Liveness: the process is up' })
  @ApiOkResponse({
    description: 'The process is up.',
    schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: ['ok'] } }, example: { status: 'ok' } },
  })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiOperation({ summary: 'Readiness: PostgreSQL and Redis answer (503 naming the one that does not, within 2 s)' })
  @ApiOkResponse({
    description: 'Both dependencies answer.',
    schema: { ...READINESS_SCHEMA, example: { status: 'ok', checks: { postgres: { status: 'up' }, redis: { status: 'up' } } } },
  })
  @ApiServiceUnavailableResponse({
    description: 'A dependency does not answer; `checks` names it.',
    schema: {
      ...READINESS_SCHEMA,
      example: { status: 'error', checks: { postgres: { status: 'up' }, redis: { status: 'down', error: 'Connection is closed.' } } },
    },
  })
  async ready(@Res({ passthrough: true }) res: Response): Promise<{ status: 'ok' | 'error'; checks: Record<string, CheckResult> }> {
    const [postgres, redis] = await Promise.all([check(() => sql(this.dataSource, 'SELECT 1')), check(() => this.redis.client.ping())]);
    const ok = postgres.status === 'up' && redis.status === 'up';
    res.status(ok ? HttpStatus.OK : HttpStatus.SERVICE_UNAVAILABLE);
    return { status: ok ? 'ok' : 'error', checks: { postgres, redis } };
  }
}
