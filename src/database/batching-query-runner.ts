import { Query } from 'pg';
import type { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import type { ReplicationMode } from 'typeorm/driver/types/ReplicationMode';
// pg's own conversion of parameters for a Bind message (dates, arrays, JSON), as for the statements it sends itself.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { prepareValue } = require('pg/lib/utils') as { prepareValue: (value: unknown) => unknown };

interface PgConnection {
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(msg: { text: string; name?: string }): void;
  bind(msg: object): void;
  execute(msg: object): void;
}

/** A statement as the data-access helpers hand it to TypeORM: text, or a prepared statement's name and text. */
type Sql = string | { name: string; text: string };

/** A statement sent ahead of another in the same batch: its text (unnamed) or its name (prepared on the connection already). */
interface Ahead {
  name?: string;
  text: string;
  values?: unknown[];
}

const BEGIN: Ahead = { text: 'START TRANSACTION' };

/**
 * One statement with others sent ahead of it in the same message batch (one write, one Sync, one answer) rather than
 * each on a round trip of its own. PostgreSQL runs them in order and stops at the first error, which is then this
 * query's error; a START TRANSACTION among them makes the batch part of a transaction block that stays open after the
 * Sync, as one sent alone would. Only the last statement's result is returned.
 */
class BatchedQuery extends Query {
  private answered = 0;
  private mainWasParsed = true;
  private readonly answer: Promise<unknown>;

  constructor(
    private readonly ahead: Ahead[],
    readonly statement: Sql,
    values: unknown[] | undefined,
  ) {
    super(typeof statement === 'string' ? { text: statement, values } : { name: statement.name, text: statement.text, values });
    this.answer = new Promise((resolve, reject) => {
      (this as unknown as { callback: (err: Error | null | undefined, res: unknown) => void }).callback = (err, res) => (err ? reject(err) : resolve(res));
    });
  }

  /** pg returns a submitted query object as is; TypeORM awaits what it gets, so the object answers like pg's promise. */
  then<R1, R2>(onFulfilled?: (value: unknown) => R1 | PromiseLike<R1>, onRejected?: (reason: unknown) => R2 | PromiseLike<R2>): Promise<R1 | R2> {
    return this.answer.then(onFulfilled, onRejected);
  }

  /** Always the extended protocol: the statements ahead go in front of this one's Parse/Bind/Execute. */
  requiresPreparation(): boolean {
    return true;
  }

  prepare(connection: PgConnection): void {
    const { name } = this as unknown as { name?: string };
    this.mainWasParsed = !name || connection.parsedStatements[name] !== undefined;
    for (const a of this.ahead) {
      if (!a.name) connection.parse({ text: a.text });
      connection.bind({ statement: a.name ?? '', values: a.values ?? [], valueMapper: prepareValue });
      connection.execute({});
    }
    (Query.prototype as unknown as { prepare(c: PgConnection): void }).prepare.call(this, connection);
  }

  /** Rows of a statement ahead (none is sent with a Describe) are not this query's. */
  handleDataRow(msg: unknown): void {
    if (this.answered < this.ahead.length) return;
    (Query.prototype as unknown as { handleDataRow(m: unknown): void }).handleDataRow.call(this, msg);
  }

  /**
   * The first CommandCompletes are those of the statements ahead, not results of this one. pg takes any ParseComplete
   * of the batch for this statement's own and records it as prepared on the connection: undone until its own Parse
   * has succeeded (a failed one is sent again next time).
   */
  handleCommandComplete(msg: unknown, connection: PgConnection): void {
    if (this.answered < this.ahead.length) {
      this.answered++;
      this.forgetUnparsed(connection);
      return;
    }
    (Query.prototype as unknown as { handleCommandComplete(m: unknown, c: unknown): void }).handleCommandComplete.call(this, msg, connection);
  }

  handleError(err: Error, connection: PgConnection): void {
    // The error may have come before this statement's own Parse.
    if (this.answered < this.ahead.length) this.forgetUnparsed(connection);
    (Query.prototype as unknown as { handleError(e: Error, c: PgConnection): void }).handleError.call(this, err, connection);
  }

  private forgetUnparsed(connection: PgConnection): void {
    const { name, text } = this as unknown as { name?: string; text: string };
    if (!name || this.mainWasParsed) return;
    delete connection.parsedStatements[name];
    connection.submittedNamedStatements[name] = text;
  }
}

/** A single statement pg may send with the extended protocol (parameters, or prepared): never several in one text. */
function isSingleStatement(query: unknown, parameters: unknown[] | undefined): query is Sql {
  if (query === 'COMMIT' || query === 'START TRANSACTION') return true;
  const q = query as { name?: unknown; text?: unknown };
  return (
    (typeof q === 'object' && q !== null && typeof q.name === 'string' && typeof q.text === 'string') || (typeof query === 'string' && !!parameters?.length)
  );
}

/**
 * TypeORM's query runner for PostgreSQL, sending fewer round trips per transaction with the same statements in the
 * same order: the outermost transaction's START TRANSACTION goes with its first statement, and a statement whose
 * answer the caller does not wait for (`sendWithNext`, the outbox's append) goes with the next one, or with the COMMIT.
 * Each saved round trip is a write and a wake-up fewer for the service and for PostgreSQL's backend. Transactions still
 * open, commit and roll back through TypeORM (DataSource.transaction, its subscribers' events); an isolation level or a
 * savepoint starts as before, and a statement that has to go as a simple query (no parameters, not prepared: its text
 * may hold several statements) is sent after what waits, on its own.
 */
export class BatchingQueryRunner extends PostgresQueryRunner {
  private beginPending = false;
  private waiting: Ahead[] = [];

  async startTransaction(isolationLevel?: Parameters<PostgresQueryRunner['startTransaction']>[0]): Promise<void> {
    if (this.transactionDepth > 0 || isolationLevel || this.dataSource.options.isolationLevel) return super.startTransaction(isolationLevel);
    this.isTransactionActive = true;
    try {
      await this.broadcaster.broadcast('BeforeTransactionStart');
    } catch (err) {
      this.isTransactionActive = false;
      throw err;
    }
    this.beginPending = true;
    this.transactionDepth += 1;
    await this.broadcaster.broadcast('AfterTransactionStart');
  }

  /**
   * Queues a statement of the open transaction whose answer nobody needs, to go with the transaction's next statement
   * or its COMMIT; its failure then fails that statement, and so the transaction. False outside a transaction (the
   * caller runs it itself).
   */
  sendWithNext(statement: Sql, values: unknown[]): boolean {
    if (!this.isTransactionActive || this.isReleased) return false;
    this.waiting.push(typeof statement === 'string' ? { text: statement, values } : { name: statement.name, text: statement.text, values });
    return true;
  }

  async rollbackTransaction(): Promise<void> {
    // Queued statements would be rolled back with the transaction: never sent.
    this.waiting = [];
    if (this.beginPending) {
      this.beginPending = false;
      await super.query('START TRANSACTION');
    }
    return super.rollbackTransaction();
  }

  async release(): Promise<void> {
    this.beginPending = false;
    this.waiting = [];
    return super.release();
  }

  async query(query: string, parameters?: unknown[], useStructuredResult = false): ReturnType<PostgresQueryRunner['query']> {
    if (!this.beginPending && !this.waiting.length) return super.query(query, parameters, useStructuredResult);
    if (!isSingleStatement(query, parameters)) {
      await this.sendWaiting();
      return super.query(query, parameters, useStructuredResult);
    }
    const ahead = this.takeAhead();
    if (!ahead) {
      await this.sendWaiting();
      return super.query(query, parameters, useStructuredResult);
    }
    const batch = new BatchedQuery(ahead, query, parameters);
    try {
      return await super.query(batch as unknown as string, parameters, useStructuredResult);
    } catch (e) {
      // TypeORM's error names the query it was given: the statement, not the batch object.
      if ((e as { query?: unknown }).query === batch) (e as { query?: unknown }).query = query;
      throw e;
    }
  }

  /**
   * What can go ahead of the next statement: the START TRANSACTION and the queued statements, when every queued
   * prepared statement is prepared on this connection already (a first Parse goes on its own round trip, so pg
   * records it as it does for any statement). Null when they cannot. Taken without waiting for anything, so a
   * statement issued meanwhile cannot reach the connection before the batch.
   */
  private takeAhead(): Ahead[] | null {
    const parsed = (this.databaseConnection as { connection?: PgConnection } | undefined)?.connection?.parsedStatements;
    if (this.waiting.some((w) => w.name && parsed?.[w.name] === undefined)) return null;
    const ahead = [...(this.beginPending ? [BEGIN] : []), ...this.waiting];
    this.beginPending = false;
    this.waiting = [];
    return ahead;
  }

  /** Sends what waits, in order, each queued statement as the last of its batch. */
  private async sendWaiting(): Promise<void> {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) await this.query((w.name ? { name: w.name, text: w.text } : w.text) as unknown as string, w.values);
    if (this.beginPending) {
      this.beginPending = false;
      await super.query('START TRANSACTION');
    }
  }
}

/** Makes the DataSource's query runners BatchingQueryRunner (the app's pool; not the migration runner's). */
export function batchTransactionStatements(ds: DataSource): DataSource {
  const driver = ds.driver as PostgresDriver;
  driver.createQueryRunner = (mode: ReplicationMode) => new BatchingQueryRunner(driver, mode);
  return ds;
}
