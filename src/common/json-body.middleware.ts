import express, { NextFunction, Request, Response } from 'express';

const parser = express.json({ limit: '100kb', strict: true, type: 'application/json' });

/**
 * Express's JSON parser wrapped so its errors (bad JSON, too large) are thrown inside Nest's middleware
 * proxy and rendered by the global exception filter in the contract's envelope.
 */
export async function jsonBodyParser(req: Request, res: Response, next: NextFunction): Promise<void> {
  await new Promise<void>((resolve, reject) => parser(req, res, (err?: unknown) => (err ? reject(err) : resolve())));
  next();
}
