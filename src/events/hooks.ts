import { Injectable } from '@nestjs/common';
import type { Tx } from './transaction-runner';

/**
 * Internal domain events handled synchronously inside the transaction that raises them,
 * for work that must commit or roll back together (completion → certificate).
 * The raising module knows only this map, not the handling module.
 */
export interface InTransactionHookMap {
  'enrollment.completed': {
    input: {
      enrollmentId: number;
      userId: number;
      courseId: number;
      completedAt: Date;
      overrideQuiz: boolean;
    };
    output: { certificateId: string };
  };
}

export type HookName = keyof InTransactionHookMap;
type Handler<K extends HookName> = (tx: Tx, input: InTransactionHookMap[K]['input']) => Promise<InTransactionHookMap[K]['output']>;

@Injectable()
export class InTransactionHooks {
  private readonly handlers = new Map<HookName, Handler<HookName>>();

  register<K extends HookName>(name: K, handler: Handler<K>): void {
    if (this.handlers.has(name)) throw new Error(`A handler for ${name} is already registered`);
    this.handlers.set(name, handler as unknown as Handler<HookName>);
  }

  /**
   * The handler of a hook, which must exist: a raised hook that nothing handles would silently skip required work
   * (a completed course without its certificate).
   */
  handlerOf<K extends HookName>(name: K): Handler<K> {
    const handler = this.handlers.get(name) as Handler<K> | undefined;
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
