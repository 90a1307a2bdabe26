import { Injectable } from '@nestjs/common';
import type { HookName } from './hook-map';
import type { HookHandler, HookHandlers } from './tx';

export type { HookName, InTransactionHookMap } from './hook-map';

/** The handler of each in-transaction hook, registered by the module that handles it when the application starts. */
@Injectable()
export class InTransactionHooks implements HookHandlers {
  private readonly handlers = new Map<HookName, HookHandler<HookName>>();

  register<K extends HookName>(name: K, handler: HookHandler<K>): void {
    if (this.handlers.has(name)) throw new Error(`A handler for ${name} is already registered`);
    this.handlers.set(name, handler as unknown as HookHandler<HookName>);
  }

  /**
   * The handler of a hook, which must exist: a raised hook that nothing handles would silently skip required work
   * (a completed course without its certificate).
   */
  handlerOf<K extends HookName>(name: K): HookHandler<K> {
    const handler = this.handlers.get(name) as HookHandler<K> | undefined;
    if (!handler) throw new MissingHookHandlerError(name);
    return handler;
  }

  /**
   * Declares that the caller raises `name`. Raising modules call it when the application boots
   * (onApplicationBootstrap, after every module's onModuleInit has registered its handlers), so an application
   * assembled without the handling module refuses to start instead of failing on the first completion.
   */
  requireHandler(name: HookName, raisedBy: string): void {
    if (!this.handlers.has(name)) throw new MissingHookHandlerError(name, raisedBy);
  }
}

export class MissingHookHandlerError extends Error {
  constructor(name: HookName, raisedBy?: string) {
    super(`No handler is registered for the in-transaction hook ${name}${raisedBy ? `, which ${raisedBy} raises` : ''}: import the module that handles it`);
    this.name = 'MissingHookHandlerError';
  }
}
