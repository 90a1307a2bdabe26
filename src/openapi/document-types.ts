/**
 * The parts of an OpenAPI document the post-processing reads or writes. @nestjs/swagger types OpenAPI 3.0 only, and
 * the document is rewritten into 3.1 (type unions, numeric exclusive bounds), so both shapes fit here; every object
 * stays open (`unknown` for any other keyword) because the rewrite copies keywords it does not know through.
 */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  description?: string;
  example?: unknown;
  examples?: unknown[];
  nullable?: boolean;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  not?: Schema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean | number;
  exclusiveMaximum?: boolean | number;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
  minLength?: number;
  maxLength?: number;
  [keyword: string]: unknown;
}

export interface MediaType {
  schema?: Schema;
  [key: string]: unknown;
}

/** A parameter, or a `$ref` to a shared one. */
export interface Parameter {
  $ref?: string;
  name?: string;
  in?: string;
  schema?: Schema;
  [key: string]: unknown;
}

/** A response, or a `$ref` to a shared one. */
export interface Response {
  $ref?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, MediaType>;
  [key: string]: unknown;
}

export interface Operation {
  summary?: string;
  description?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, MediaType> };
  responses: Record<string, Response>;
  [key: string]: unknown;
}

export interface Document {
  openapi: string;
  servers?: unknown[];
  paths?: Record<string, Record<string, Operation | undefined>>;
  components?: {
    schemas?: Record<string, Schema>;
    headers?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
    responses?: Record<string, unknown>;
    [key: string]: unknown;
  };
  webhooks?: Record<string, unknown>;
  [key: string]: unknown;
}
