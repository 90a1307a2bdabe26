import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntitySubscriberInterface, QueryRunner, TransactionCommitEvent, TransactionRollbackEvent, TransactionStartEvent } from 'typeorm';
import { IdempotencyContext, IdempotencyKeyTaken } from './idempotency-context';
import { IdempotencyRecords } from './idempotency-records';

/**
 * Writes the request's Idempotency-Key row just before the COMMIT of the transaction it runs, whichever way the
 * transaction was opened (TransactionRunner, DataSource.transaction, a repository save): the key and the write it
 * guards commit together or not at all. A transaction that finds the key already applied rolls back.
 */
@Injectable()
export class IdempotencySubscriber implements EntitySubscriberInterface {
  /** Open transaction depth per query runner: only the outermost COMMIT carries the row (savepoints do not). */
  private readonly depth = new WeakMap<QueryRunner, number>();

  constructor(
    @InjectDataSource() dataSource: DataSource,
    private readonly records: IdempotencyRecords,
  ) {
    dataSource.subscribers.push(this);
  }

  afterTransactionStart(event: TransactionStartEvent): void {
    if (!IdempotencyContext.current()) return;
    this.depth.set(event.queryRunner, (this.depth.get(event.queryRunner) ?? 0) + 1);
  }

  async beforeTransactionCommit(event: TransactionCommitEvent): Promise<void> {
    const ctx = IdempotencyContext.current();
    if (!ctx || ctx.applied || ctx.writer || this.depth.get(event.queryRunner) !== 1) return;
    const xid = await this.records.markApplied(event.manager, ctx.scopeKey, ctx.fingerprint);
    if (xid === null) throw new IdempotencyKeyTaken();
    ctx.writer = event.queryRunner;
    ctx.xid = xid;
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    const ctx = IdempotencyContext.current();
    if (!ctx) return;
    this.leave(event.queryRunner);
    if (ctx.writer === event.queryRunner) {
      ctx.applied = true;
      ctx.writer = undefined;
    }
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    const ctx = IdempotencyContext.current();
    if (!ctx) return;
    this.leave(event.queryRunner);
    if (ctx.writer === event.queryRunner) ctx.writer = undefined;
  }

  private leave(runner: QueryRunner): void {
    const depth = (this.depth.get(runner) ?? 1) - 1;
    if (depth > 0) this.depth.set(runner, depth);
    else this.depth.delete(runner);
  }
}
