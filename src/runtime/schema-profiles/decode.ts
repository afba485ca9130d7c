/**
 * Decoding arguments written in a profile's form back into canonical arguments
 * (src/runtime/schema-profiles.ts). Profile-neutral: the decoder built with the schema says how.
 */
import { isObj, jsonTypeOf, SET_NULL_PROPERTY, type Decoder, type Obj } from './types.js';

/**
 * Arguments written in a profile's form → canonical arguments. Never throws: a shape the
 * decoder does not recognise is passed on as it is, for the canonical validation to refuse.
 */
export function decodeArguments(decoder: Decoder, args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const decoded = decodeValue(decoder, args);
  return isObj(decoded) ? decoded : { ...args };
}

function decodeValue(decoder: Decoder, value: unknown): unknown {
  switch (decoder.kind) {
    case 'keep':
      return value;
    case 'json':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value) as unknown;
      } catch {
        return value;
      }
    case 'array':
      return Array.isArray(value) ? value.map((item) => decodeValue(decoder.items, item)) : value;
    case 'object':
      return isObj(value) ? decodeObject(decoder, value) : value;
    case 'union': {
      const type = jsonTypeOf(value);
      const keys = isObj(value) ? Object.keys(value) : null;
      const member = decoder.members.find((m) => m.types.includes(type) && (keys === null || m.keys === null || keys.every((k) => m.keys!.includes(k))));
      return member === undefined ? value : decodeValue(member.decoder, value);
    }
    case 'tagged': {
      if (!isObj(value)) return value;
      const present = Object.keys(value).filter((k) => value[k] !== null && value[k] !== undefined);
      const tag = present.length === 1 && Object.hasOwn(decoder.tags, present[0]!) ? present[0]! : null;
      if (tag !== null) return decodeValue(decoder.tags[tag]!, value[tag]);
      if (decoder.object === null || present.some((k) => Object.hasOwn(decoder.tags, k))) return value;
      return decodeValue(decoder.object, value);
    }
  }
}

function decodeObject(decoder: Extract<Decoder, { kind: 'object' }>, value: Obj): Obj {
  const out: Obj = {};
  for (const [key, item] of Object.entries(value)) {
    if (decoder.setNull !== null && key === SET_NULL_PROPERTY) continue;
    const property = Object.hasOwn(decoder.properties, key) ? decoder.properties[key] : undefined;
    if (property === undefined) { out[key] = item; continue; }
    if (item === null && property.nullMeansAbsent) continue;
    out[key] = item === null ? null : decodeValue(property.decoder, item);
  }
  if (decoder.setNull !== null && Object.hasOwn(value, SET_NULL_PROPERTY)) {
    const names = value[SET_NULL_PROPERTY];
    // A name outside the list, or one also given a value, keeps `set_null` as an unknown argument
    // for the canonical check to refuse.
    const valid = Array.isArray(names) && names.every((name) => typeof name === 'string' && decoder.setNull!.includes(name) && (out[name] === undefined || out[name] === null));
    if (valid) {
      for (const name of names as string[]) out[name] = null;
    } else if (names !== null) {
      out[SET_NULL_PROPERTY] = names;
    }
  }
  return out;
}
