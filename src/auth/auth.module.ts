import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { ApiKeyGuard } from './api-key.guard';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { UsageCounters } from './usage-counters';
import { UsageCountersRepository } from './usage-counters.repository';
import { UsageLimiter } from './usage-limiter';

// Global and re-exporting ApiKeysModule: the admin dashboard's Basic auth checks keys the way the guard does.
@Global()
@Module({
  imports: [ApiKeysModule],
  providers: [UsageCounters, UsageCountersRepository, UsageLimiter, AuthFailureLimiter, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [ApiKeysModule, UsageLimiter, AuthFailureLimiter],
})
export class AuthModule {}
