import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Plan } from './plan.entity';

/**
 * The plans table. Nothing queries it through the entity today (the key lookup joins it to resolve a key's terms),
 * but the entity is registered here, by the module that owns the table, not by a module that merely reads it.
 */
@Module({
  imports: [TypeOrmModule.forFeature([Plan])],
})
export class PlansModule {}
