import { PartnersRepository } from './partners.repository';
import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { AdminPartnersController } from './admin-partners.controller';
import { CorsOrigins } from './cors-origins';
import { Partner } from './partner.entity';
import { PartnersController } from './partners.controller';
import { PartnersService } from './partners.service';
import { VerificationMailer } from './verification-mailer';
import { ProductionAccessRequest } from './production-access-request.entity';
import { ProductionAccessService } from './production-access.service';

@Module({
  imports: [TypeOrmModule.forFeature([Partner, ProductionAccessRequest]), ApiKeysModule],
  controllers: [PartnersController, AdminPartnersController],
  providers: [PartnersRepository, PartnersService, ProductionAccessService, CorsOrigins, VerificationMailer],
  exports: [PartnersService, CorsOrigins],
})
export class PartnersModule {}
