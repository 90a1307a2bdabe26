import { Injectable, Logger } from '@nestjs/common';
import { EventEmitter2 } from '@nestjs/event-emitter';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { sqlOne } from '../common/database';
import { isDependencyDown } from '../common/error-response';
import { IdempotencyContext } from '../idempotency/idempotency-context';
import { DomainEvent, EVENTS_COMMITTED } from './event-map';
import { InTransactionHooks } from './hooks';
import { OutboxStore } from './outbox-store';
import { Tx } from './tx';

// Features import Tx with the runner that creates it.
export { Tx } from './tx';

/** How long a request whose COMMIT answer was lost waits for PostgreSQL to say whether it committed. */
const SETTLE_LIMIT_MS = 60_000;

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock

@Injectable()
export class TransactionRunner {
  private readonly logger = new Logger(TransactionRunner.name);

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    private readonly emitter: EventEmitter2,
    private readonly hooks: InTransactionHooks,
    private readonly outbox: OutboxStore,
  ) {}

  /**
   * Runs `work` in one transaction, retried on deadlock or serialization failure,
   * then publishes the recorded events in process (the outbox relay covers a crash in between).
   */
  async run<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const recorded: DomainEvent[] = [];
      let done: { out: T } | undefined;
      try {
        const result = await this.dataSource.transaction(async (em) => {
          const out = await work(new Tx(em, recorded, this.hooks));
          await this.outbox.append(em, recorded);
          done = { out };
          return out;
        });
        if (recorded.length) this.publish(recorded);
        return result;
      } catch (e) {
        // The work was done and the COMMIT failed with the connection: it may have committed all the same.
        if (done && (await this.committedAfterAll(e))) {
          if (recorded.length) this.publish(recorded);
          return done.out;
        }
        const code = (e as { code?: string }).code;
        if (!code || !RETRYABLE.has(code) || attempt >= 3) throw e;
        this.logger.warn({ code, attempt }, 'Transaction retried');
      }
    }
  }

  /**
   * A keyed request's COMMIT whose answer was lost (PostgreSQL frozen or cut off after it received the COMMIT): the
   * outcome is unknown, and guessing wrong either way leaves the key answering 409 for a day or applies the write
   * twice. Waits (up to SETTLE_LIMIT_MS, with back-off) until PostgreSQL answers and asks it what became of the
   * transaction whose id the key's row returned: committed, the request goes on as if the COMMIT had answered (its
   * response is stored for retries); aborted, or no answer in time, the failure stands and the key stays free.
   */
  private async committedAfterAll(err: unknown): Promise<boolean> {
    const ctx = IdempotencyContext.current();
    // TypeORM's rollback after the failed COMMIT has cleared ctx.writer; the id stays (a stale one reads as aborted).
    const xid = ctx?.xid;
    if (!ctx || !xid || ctx.applied || !isDependencyDown(err)) return false;
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    for (let wait = 250; Date.now() < deadline; wait = Math.min(wait * 2, 5000)) {
      try {
        const row = await sqlOne<{ status: string | null }>(this.dataSource, 'SELECT pg_xact_status($1::xid8) AS status', [xid]);
        if (row?.status === 'committed') {
          this.logger.warn({ xid }, 'A COMMIT whose answer was lost had committed: the request goes on');
          Object.assign(ctx, { applied: true, writer: undefined, xid: undefined });
          return true;
        }
        if (row?.status !== 'in progress') return false;
      } catch {
        // PostgreSQL is still away: try again
      }
      await new Promise((r) => setTimeout(r, wait));
    }
    return false;
  }

  private publish(events: DomainEvent[]): void {
    try {
      this.emitter.emit(EVENTS_COMMITTED, events);
    } catch (e: unknown) {
      // Listeners must not fail a committed request; the relay dispatches anything left behind.
      this.logger.error({ err: e }, 'Publishing committed events failed');
    }
  }
}
