import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { UsersModule } from '../users/users.module';
import { CreditAccount } from './credit-account.entity';
import { CreditLedger } from './credit-ledger';
import { CreditsRepository } from './credits.repository';
import { CreditTransaction } from './credit-transaction.entity';
import { CreditsController } from './credits.controller';
import { CreditsService } from './credits.service';

@Module({
  imports: [TypeOrmModule.forFeature([CreditAccount, CreditTransaction]), UsersModule],
  controllers: [CreditsController],
  providers: [CreditsService, CreditsRepository, CreditLedger],
  exports: [CreditLedger],
})
export class CreditsModule {}
