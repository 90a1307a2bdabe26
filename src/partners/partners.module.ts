import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminPartnersController } from './admin-partners.controller';
import { CorsOrigins } from './cors-origins';
import { Partner } from './partner.entity';
import { PartnersController } from './partners.controller';
import { PartnersService } from './partners.service';
import { Plan } from './plan.entity';
import { ProductionAccessRequest } from './production-access-request.entity';
import { ProductionAccessService } from './production-access.service';

@Module({
  imports: [TypeOrmModule.forFeature([Partner, Plan, ProductionAccessRequest])],
  controllers: [PartnersController, AdminPartnersController],
  providers: [PartnersService, ProductionAccessService, CorsOrigins],
  exports: [PartnersService, CorsOrigins],
})
export class PartnersModule {}
