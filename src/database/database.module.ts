import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { DataSource, DataSourceOptions } from 'typeorm';
import { batchTransactionStatements } from './batching-query-runner';
import { dataSourceOptions, guardClientErrors } from './data-source';

@Module({
  imports: [
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        ...dataSourceOptions(config.databaseUrl, config.databasePoolSize, config.requestTimeoutMs),
        migrations: [],
        autoLoadEntities: true,
        // Start-up must not hang or spin when PostgreSQL is away: one try, then the readiness probe tells.
        retryAttempts: 0,
      }),
      dataSourceFactory: async (options?: DataSourceOptions) => batchTransactionStatements(guardClientErrors(await new DataSource(options!).initialize())),
    }),
  ],
})
export class DatabaseModule {}
