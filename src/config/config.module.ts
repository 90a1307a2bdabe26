import { Global, Module } from '@nestjs/common';
import { AppConfig, loadConfigOrExit } from './config';

export const APP_CONFIG = Symbol('APP_CONFIG');

@Global()
@Module({
  providers: [{ provide: APP_CONFIG, useFactory: (): AppConfig => loadConfigOrExit() }],
  exports: [APP_CONFIG],
})
export class AppConfigModule {}
