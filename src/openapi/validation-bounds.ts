import { getMetadataStorage } from 'class-validator';
import type { Schema } from './document-types';

type Constructor = abstract new (...args: never[]) => unknown;

interface Rule {
  type: string;
  name?: string;
  propertyName: string;
  constraints?: unknown[];
  each?: boolean;
  groups?: string[];
}

/**
 * Bounds the request DTOs enforce with class-validator but did not repeat in their @ApiProperty (array sizes,
 * distinct items, string lengths, number bounds), copied into the document's schema of the same name so that a
 * validator reading the document refuses what the service refuses. Never overrides what a decorator documented.
 */
export function addValidationBounds(schemas: Record<string, Schema>, names: Set<string>): void {
  // class-validator keeps its rules per target class in this (untyped, internal) map.
  const storage = getMetadataStorage() as unknown as { validationMetadatas?: Map<unknown, Rule[]> };
  if (!(storage.validationMetadatas instanceof Map)) return;
  const isClass = (t: unknown): t is Constructor => typeof t === 'function';
  for (const name of names) {
    const schema = schemas[name];
    if (!schema?.properties) continue;
    // The DTO the schema was generated from; its rules include those of the classes it extends.
    const cls = [...storage.validationMetadatas.keys()].find((t): t is Constructor => isClass(t) && t.name === name);
    const rules: Rule[] = [];
    for (const [target, list] of storage.validationMetadatas) {
      if (cls && isClass(target) && (cls === target || cls.prototype instanceof target)) rules.push(...list);
    }
    for (const rule of rules) {
      const prop: Schema | undefined = schema.properties[rule.propertyName];
      if (!prop || (rule.groups && rule.groups.length)) continue;
      const [a, b] = (rule.constraints ?? []) as number[];
      const kind = rule.name ?? rule.type;
      const isArray = prop.type === 'array' || (Array.isArray(prop.type) && prop.type.includes('array'));
      if (kind === 'arrayMinSize' && isArray) prop.minItems ??= a;
      else if (kind === 'arrayMaxSize' && isArray) prop.maxItems ??= a;
      else if (kind === 'arrayUnique' && isArray) prop.uniqueItems ??= true;
      else if (!rule.each && !isArray) {
        if (kind === 'isLength') {
          if (typeof a === 'number') prop.minLength ??= a;
          if (typeof b === 'number') prop.maxLength ??= b;
        } else if (kind === 'minLength') prop.minLength ??= a;
        else if (kind === 'maxLength') prop.maxLength ??= a;
        else if (kind === 'min') prop.minimum ??= a;
        else if (kind === 'max') prop.maximum ??= a;
      }
    }
  }
}
