import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { AuthFailureLimiter } from './auth-failure-limiter';
import { KeyStore } from './key-store';
import { KeysService } from './keys.service';
import { UsageCounters } from './usage-counters';
import { UsageLimiter } from './usage-limiter';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey])],
  providers: [KeyStore, UsageCounters, UsageLimiter, AuthFailureLimiter, KeysService, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [KeyStore, UsageLimiter, AuthFailureLimiter, KeysService],
})
export class AuthModule {}
