import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Plan } from './plan.entity';

/**
 * The plans table. No feature statement names it: a partner's terms are read through the `partner_accounts` view
 * (a partner joined to its plan), which the api-keys lookup selects from. The entity is registered here, by the
 * module that owns the table, not by a module that merely reads it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Plan])],
})
export class PlansModule {}
