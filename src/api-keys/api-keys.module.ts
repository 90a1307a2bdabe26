import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKey } from './api-key.entity';
import { ApiKeysRepository } from './api-keys.repository';
import { KeyStore } from './key-store';
import { KeysService } from './keys.service';

/** API keys: issuing and revoking them (KeysService) and resolving a presented key to its partner and plan (KeyStore). */
@Module({
  imports: [TypeOrmModule.forFeature([ApiKey])],
  providers: [ApiKeysRepository, KeyStore, KeysService],
  exports: [KeyStore, KeysService],
})
export class ApiKeysModule {}
