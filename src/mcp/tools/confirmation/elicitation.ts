/**
 * The question on the wire (MCP 2026-07-28 §elicitation): whether the client takes a form, the
 * `input_required` result with its one boolean field, and the person's answer read back from
 * `inputResponses`. A malformed answer is answered like a foreign state (-32602), with no hint
 * of what was wrong.
 */
import { isPlainObject } from '../../../runtime/values.js';
import { INVALID_PARAMS, JsonRpcError } from '../../json-rpc.js';
import type { Era } from '../../versions.js';
import type { InputRequired } from './types.js';

/** The one input request, and the one field of its form. */
const CONFIRM_KEY = 'confirm';

/** What `inputResponses.confirm` says; `invalid` when it is not an answer to our question. */
export type Answer = 'missing' | 'confirmed' | 'declined' | 'cancelled' | 'invalid';

/** One generic message for every refused state: the client learns nothing about which check failed. */
export function invalidState(): JsonRpcError {
  return new JsonRpcError(INVALID_PARAMS, 'Invalid params: requestState is not valid for this call');
}

/** Form elicitation: `elicitation: {}` (form by default) or an object naming `form` (MCP 2026-07-28 §elicitation). */
export function allowsFormElicitation(era: Era, capabilities: Readonly<Record<string, unknown>> | undefined): boolean {
  if (!era.modern || capabilities === undefined) return false;
  const elicitation = capabilities['elicitation'];
  if (!isPlainObject(elicitation)) return false;
  return Object.keys(elicitation).length === 0 || isPlainObject(elicitation['form']);
}

function readAction(answer: Readonly<Record<string, unknown>>): Answer {
  switch (answer['action']) {
    case 'accept': {
      const content = answer['content'];
      return isPlainObject(content) && content[CONFIRM_KEY] === true ? 'confirmed' : 'declined';
    }
    case 'decline': return 'declined';
    case 'cancel': return 'cancelled';
    default: return 'invalid';
  }
}

/** The person's answer in `inputResponses.confirm`. */
export function readAnswer(responses: unknown): Answer {
  if (responses === undefined) return 'missing';
  if (!isPlainObject(responses)) return 'invalid';
  const answer = responses[CONFIRM_KEY];
  if (answer === undefined) return 'missing';
  return isPlainObject(answer) ? readAction(answer) : 'invalid';
}

export function buildInputRequired(message: string, requestState: string): InputRequired {
  return {
    resultType: 'input_required',
    inputRequests: {
      [CONFIRM_KEY]: {
        method: 'elicitation/create',
        params: {
          mode: 'form',
          message,
          requestedSchema: {
            type: 'object',
            properties: { [CONFIRM_KEY]: { type: 'boolean', title: 'Confirm', description: 'Yes runs it now; anything else changes nothing.' } },
            required: [CONFIRM_KEY],
          },
        },
      },
    },
    requestState,
  };
}
