import type { IncomingMessage } from 'node:http';
import type { GatewayMiddleware } from '../context.js';
import type { JsonBody } from '../../ingest/json-body.js';

/** A body reader (readJsonBody with its limits) as Koa middleware: into ctx.state.json. */
export function jsonBody(read: (req: IncomingMessage) => Promise<JsonBody>): GatewayMiddleware {
  return async (ctx, next) => {
    ctx.state.json = await read(ctx.req);
    return next();
  };
}
