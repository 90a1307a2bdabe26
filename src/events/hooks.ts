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

  handlerOf<K extends HookName>(name: K): Handler<K> | undefined {
    return this.handlers.get(name) as Handler<K> | undefined;
  }
}
