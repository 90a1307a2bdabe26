import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-key.entity';
import { ApiKeyGuard } from './api-key.guard';
import { KeyStore } from './key-store';
import { KeysService } from './keys.service';
import { UsageLimiter } from './usage-limiter';

@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey])],
  providers: [KeyStore, UsageLimiter, KeysService, { provide: APP_GUARD, useClass: ApiKeyGuard }],
  exports: [KeyStore, UsageLimiter, KeysService],
})
export class AuthModule {}
