/**
 * Whether a parsed tools-review.gen.json is a review copy this report can read: its `version` one it
 * knows and every field of the shape review.ts writes. A copy from a newer generator, or one edited
 * by hand, is read as no review copy (the report lists what it could not check) rather than trusted
 * field by field.
 */
import { REVIEW_VERSION, type RetiredTool, type ReviewCopy, type ReviewTool } from './review.js';
import { isPlainObject } from '../../src/runtime/values.js';

const isText = (value: unknown): value is string => typeof value === 'string';
const isTexts = (value: unknown): boolean => Array.isArray(value) && value.every(isText);
const isFlag = (value: unknown): boolean => typeof value === 'boolean';
const isAcknowledgement = (value: unknown): boolean => isPlainObject(value) && isText(value.since) && isText(value.reason);

function isReviewTool(value: unknown): value is ReviewTool {
  return isPlainObject(value) && isText(value.name) && isText(value.operationId) && isTexts(value.toolsets) && isTexts(value.scopes)
    && isTexts(value.permissions) && [value.movesMoney, value.readOnly, value.destructive, value.idempotent].every(isFlag)
    && (value.outflow === undefined || value.outflow === null || isText(value.outflow))
    && [null, 'template', 'describer'].includes(value.confirmation as string | null) && Number.isFinite(value.tokens)
    && isPlainObject(value.bounds) && Object.values(value.bounds).every(isPlainObject)
    && Array.isArray(value.aliases) && value.aliases.every((alias) => isPlainObject(alias) && isText(alias.name) && isText(alias.until))
    && (value.breaking === null || isAcknowledgement(value.breaking));
}

function isRetiredTool(value: unknown): value is RetiredTool {
  return isAcknowledgement(value) && isText((value as { operationId?: unknown }).operationId);
}

/** The review copy, or null when `value` is not one of the version this generator writes. */
export function asReviewCopy(value: unknown): ReviewCopy | null {
  if (!isPlainObject(value) || value.version !== REVIEW_VERSION) return null;
  const { tools, retired } = value;
  if (!Array.isArray(tools) || !tools.every(isReviewTool) || !Array.isArray(retired) || !retired.every(isRetiredTool)) return null;
  return { version: REVIEW_VERSION, tools, retired };
}
