import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { DomainError, FieldError, validationFailed } from './errors';

function flatten(errors: ValidationError[], parent = ''): FieldError[] {
  const out: FieldError[] = [];
  for (const e of errors) {
    // Array items are named like enrollments[3].course_id.
    const field = !parent ? e.property : /^\d+$/.test(e.property) ? `${parent}[${e.property}]` : `${parent}.${e.property}`;
    if (e.constraints) {
      for (const [rule, message] of Object.entries(e.constraints)) {
        out.push({ field, message: rule === 'whitelistValidation' ? `${field} is not an allowed field` : message });
      }
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

// @nestjs/swagger's metadata keys (its constants are not exported by the package).
const API_MODEL_PROPERTIES = 'swagger/apiModelProperties';
const API_MODEL_PROPERTIES_ARRAY = 'swagger/apiModelPropertiesArray';

type Documented = { nullable?: boolean; type?: unknown };

function documentedProperties(metatype: unknown): Record<string, Documented> | null {
  if (typeof metatype !== 'function' || [String, Number, Boolean, Object, Array].includes(metatype as never)) return null;
  const prototype = metatype.prototype as object;
  const names = (Reflect.getMetadata(API_MODEL_PROPERTIES_ARRAY, prototype) ?? []) as string[];
  if (!names.length) return null;
  const out: Record<string, Documented> = {};
  for (const name of names) {
    const key = name.replace(/^:/, '');
    out[key] = (Reflect.getMetadata(API_MODEL_PROPERTIES, prototype, key) ?? {}) as Documented;
  }
  return out;
}

/**
 * class-validator's @IsOptional() lets `null` through like a missing field. A field the OpenAPI document does not
 * declare `nullable` refuses `null` (contract section 17: the document and the service accept the same requests).
 */
export function nullFields(value: unknown, metatype: unknown, parent = ''): FieldError[] {
  const props = documentedProperties(metatype);
  if (!props || !value || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: FieldError[] = [];
  for (const [key, v] of Object.entries(value)) {
    const doc = props[key];
    if (!doc) continue; // unknown fields are refused by the whitelist
    const field = parent ? `${parent}.${key}` : key;
    if (v === null) {
      if (!doc.nullable) out.push({ field, message: `${field} cannot be null` });
      continue;
    }
    const nested = typeof doc.type === 'function' && resolveType(doc.type);
    if (!nested) continue;
    if (Array.isArray(v)) v.forEach((item, i) => out.push(...nullFields(item, nested, `${field}[${i}]`)));
    else out.push(...nullFields(v, nested, field));
  }
  return out;
}

/** Swagger stores a nested DTO's type either as the class or as a thunk returning it. */
function resolveType(type: unknown): unknown {
  if (typeof type !== 'function') return undefined;
  if (documentedProperties(type)) return type;
  try {
    const resolved = (type as () => unknown)();
    return Array.isArray(resolved) ? resolved[0] : resolved;
  } catch {
    return undefined;
  }
}

class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const nulls = metadata.type === 'body' ? nullFields(value, metadata.metatype) : [];
    if (!nulls.length) return super.transform(value, metadata);
    // Reported together with whatever else is wrong with the body, each field once.
    let others: FieldError[] = [];
    try {
      await super.transform(value, metadata);
    } catch (e) {
      if (!(e instanceof DomainError) || e.code !== 'validation_failed' || !Array.isArray(e.details)) throw e;
      others = (e.details as FieldError[]).filter((d) => !nulls.some((n) => n.field === d.field));
    }
    throw validationFailed([...nulls, ...others]);
  }
}

/** Global pipe: unknown fields are 400, `null` only where documented, values are transformed to the DTO's types, errors list each field. */
export function createValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => validationFailed(flatten(errors)),
  });
}
